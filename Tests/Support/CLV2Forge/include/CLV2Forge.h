/*
 * LV2's own atom forge and utilities (lv2/atom/forge.h, util.h), for the
 * tests only: what the atom codec (Sources/Formats/LV2/LV2Atoms) writes is
 * compared with what lv2_atom_forge writes, and its padding with
 * lv2_atom_pad_size. Never linked into the plugin.
 */
#ifndef TACTUS_CLV2FORGE_H
#define TACTUS_CLV2FORGE_H

#include <lv2/atom/atom.h>
#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>

/* lv2_atom_pad_size, as a function Swift can call with any argument. */
uint32_t tactus_forge_pad_size(uint32_t size);

#endif
