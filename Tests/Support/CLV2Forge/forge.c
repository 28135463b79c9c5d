#include "CLV2Forge.h"

uint32_t tactus_forge_pad_size(uint32_t size) { return lv2_atom_pad_size(size); }
