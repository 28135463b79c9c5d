# Tactus: sample-accurate MIDI pattern sequencer, as an LV2 plugin and a command line.
#
#   make               the plugin bundle (plugin.lv2/tactus.so, its editor tactus_ui.so), the CLAP plugin
#                      (.build/clap/tactus.clap) and the command line
#   make test          every test (installs what a fresh Debian machine lacks)
#   make demo          Tactus in jalv on a private JACK server, recorded and checked against tactus render
#   make demo-offline  render the demo pattern over a transport with a tempo change and a loop
#   make install       the bundle into ~/.lv2, tactus.clap into ~/.clap and tactus into ~/.local/bin, or into
#                      $(DESTDIR)$(PREFIX)/lib/lv2, lib/clap and bin when PREFIX is given; make uninstall
#   make cli-test      the command line as a person meets it (Tests/CommandLine/cli-test)
#   make nsm-test      tactus jack under a session manager: an NSM stand-in (python3-liblo) on a JACK dummy server
#   make clap          the CLAP plugin alone, .build/clap/tactus.clap (CLAP_PATH=.build/clap finds it)
#   make clap-test     tactus.clap in the project's CLAP host against tactus render (Tests/Formats/CLAP/clap-test)
#   make bounce-test   tactus bounce as a person meets it (Tests/CommandLine/bounce-test)
#   make readme-test   README.md against the program: its commands' output, synopsis, packages, counts (scripts/readme-check)
#   make editor-test   the pattern editor in the project's test host under Xvfb: messages, pixels, X input, a monkey, valgrind
#   make test-long     the property tests with 10^7 blocks
#   make host-test     Tactus live in Ardour 7 (headless), jalv on JACK and Qtractor (Xvfb), recorded and replayed;
#                      and in Carla when TACTUS_CARLA_DIR names a Carla build (docs/hosts.md)
#   make bench         benchmarks against x42 stepseq, QMidiArp and the seed algorithm; rewrites BENCHMARKS.md
#   make fuzz          the six libFuzzer targets (run(), the pattern parser, restore(), the MIDI file reader,
#                      the editor's PatternSync, the CLAP plugin's process()), 10 minutes each (FUZZ_SECONDS, FUZZ_RUNS); docs/robustness.md
#   make soak          24 simulated hours at 96 kHz against the reference model (SOAK_HOURS)
#   make test-asan     every test under the address sanitizer; make test-tsan, the thread sanitizer

SWIFT      ?= swift
CONFIG     ?= release
BUILD_GATE ?=
PREFIX     ?=
DESTDIR    ?=
BUILD_DIR  := .build/$(CONFIG)
LV2_PATH_LOCAL := $(CURDIR)/.build/lv2
CLAP_PATH_LOCAL := $(CURDIR)/.build/clap
# What building needs (the plugin, tactus), what the tests and the demo add.
# scripts/install-deps names them under other distributions' names too, and
# goes on when their headers and tools are present without dpkg.
BUILD_PACKAGES := build-essential pkg-config lv2-dev libjack-jackd2-dev libedit-dev liblilv-dev libfluidsynth-dev libsndfile1-dev timgm6mb-soundfont libx11-dev libcairo2-dev dpf-source
TEST_PACKAGES  := liblilv-dev lilv-utils sordi jackd2 jalv python3 python3-mido python3-liblo liblo-tools openttd-openmsx planetblupi-music-midi ardour-lv2-plugins
DEMO_PACKAGES  := jackd2 jalv
ifeq ($(PREFIX),)
LV2_INSTALL_DIR := $(DESTDIR)$(HOME)/.lv2
CLAP_INSTALL_DIR := $(DESTDIR)$(HOME)/.clap
BIN_INSTALL_DIR := $(DESTDIR)$(HOME)/.local/bin
else
LV2_INSTALL_DIR := $(DESTDIR)$(PREFIX)/lib/lv2
CLAP_INSTALL_DIR := $(DESTDIR)$(PREFIX)/lib/clap
BIN_INSTALL_DIR := $(DESTDIR)$(PREFIX)/bin
endif

.PHONY: clap clap-test fuzz fuzz-build fuzz-smoke soak test-asan test-tsan bench host-test host-test-if-possible tools demo-offline all deps plugin cli validate load-without-swift embedded-check test test-unit test-long demo install uninstall clean
.PHONY: nolocks-check deps-test deps-demo cli-test nsm-test cli-without-swift bounce-test readme-test editor-test

all: plugin clap cli

deps:
	@scripts/install-deps $(BUILD_PACKAGES)

deps-test:
	@scripts/install-deps $(TEST_PACKAGES)

deps-demo:
	@scripts/install-deps $(DEMO_PACKAGES)

# The Swift runtime (and the FoundationEssentials that ArgumentParser uses)
# linked in: the tactus that make install copies runs without the toolchain
# (libc, libjack, libedit, liblilv, libfluidsynth and libsndfile stay shared).
# (make test's own builds link them dynamically; make install rebuilds this.)
cli: deps
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus --static-swift-stdlib

# --- The plugin and its editor: Embedded Swift, built with swiftc -------------------------
#
# SwiftPM builds every module as normal Swift (the tools, the tests, the hosted
# plugin of the fuzzers and sanitizers). The two .so files of the bundle are
# Embedded Swift: the same module folders compiled here under the same module
# names, in dependency order, into one build folder, so that a glue file's
# `import TactusEngine` is the same line in both builds. A slip out of the
# Embedded subset, or an allocation or lock on the audio path (@_noLocks),
# fails here. Each module is one whole-module compilation (-wmo, which
# @_noLocks needs to see every callee); a module is one $(eval ...) line
# below (name, folder, the modules it imports), and a .so lists the modules it
# links. (The plugin needs libc alone; the editor adds libm, libX11 and libcairo.)
EMBEDDED_DIR    := .build/embedded
EMBEDDED_SWIFTC := $(SWIFT)c -swift-version 6 -O -g -parse-as-library -wmo -enable-experimental-feature Embedded \
    -Xfrontend -disable-stack-protector -Xfrontend -function-sections -Xcc -fPIC -package-name tactus \
    -I $(EMBEDDED_DIR) -I Sources/C/CLV2/include -I Sources/C/CLV2Descriptor/include -I Sources/C/CLV2UI/include \
    -I Sources/C/CCLAP/include -I Sources/C/CCLAPEntry/include
EMBEDDED_CC     := clang -O2 -g -fPIC -I Sources/C/CLV2/include

# $(call EMBEDDED_MODULE,NAME,FOLDER,IMPORTED MODULES)
define EMBEDDED_MODULE
$(EMBEDDED_DIR)/$(1).o: $(shell find $(2) -name '*.swift' 2>/dev/null | sort) $(foreach m,$(3),$(EMBEDDED_DIR)/$(m).o) $(wildcard Sources/C/*/include/*.h)
	@mkdir -p $(EMBEDDED_DIR)
	@echo "tactus: embedded: $(1) ($(2))"
	$$(BUILD_GATE) $(EMBEDDED_SWIFTC) -module-name $(1) -emit-module -emit-module-path $(EMBEDDED_DIR)/$(1).swiftmodule \
	    -c $$(filter %.swift,$$^) -o $$@
endef
# One line per module, in dependency order.
$(eval $(call EMBEDDED_MODULE,LV2Atoms,Sources/Formats/LV2/LV2Atoms,))
$(eval $(call EMBEDDED_MODULE,TactusEngine,Sources/Engine,))
$(eval $(call EMBEDDED_MODULE,TactusModel,Sources/Model/TactusModel,TactusEngine))
$(eval $(call EMBEDDED_MODULE,TactusEditorModel,Sources/Model/TactusEditorModel,TactusEngine TactusModel))
$(eval $(call EMBEDDED_MODULE,TactusLV2,Sources/Formats/LV2/TactusLV2,LV2Atoms TactusEngine TactusModel))
$(eval $(call EMBEDDED_MODULE,TactusUI,Sources/Formats/LV2/TactusUI,LV2Atoms TactusEngine TactusModel TactusEditorModel))
$(eval $(call EMBEDDED_MODULE,TactusCLAP,Sources/Formats/CLAP/TactusCLAP,LV2Atoms TactusEngine TactusModel))

$(EMBEDDED_DIR)/clv2-shim.c.o: Sources/C/CLV2/shim.c $(wildcard Sources/C/CLV2/include/*.h)
	@mkdir -p $(EMBEDDED_DIR)
	$(BUILD_GATE) $(EMBEDDED_CC) -c $< -o $@
$(EMBEDDED_DIR)/clv2-descriptor.c.o: Sources/C/CLV2Descriptor/descriptor.c $(wildcard Sources/C/CLV2*/include/*.h)
	@mkdir -p $(EMBEDDED_DIR)
	$(BUILD_GATE) $(EMBEDDED_CC) -I Sources/C/CLV2Descriptor/include -c $< -o $@
$(EMBEDDED_DIR)/clv2ui-descriptor.c.o: Sources/C/CLV2UI/descriptor.c $(wildcard Sources/C/CLV2*/include/*.h)
	@mkdir -p $(EMBEDDED_DIR)
	$(BUILD_GATE) $(EMBEDDED_CC) -I Sources/C/CLV2UI/include -c $< -o $@

$(EMBEDDED_DIR)/cclap-%.c.o: Sources/C/CCLAPEntry/%.c $(wildcard Sources/C/CCLAP*/include/*.h)
	@mkdir -p $(EMBEDDED_DIR)
	$(BUILD_GATE) $(EMBEDDED_CC) -I Sources/C/CCLAP/include -I Sources/C/CCLAPEntry/include -c $< -o $@

EMBEDDED_LINK := $(SWIFT)c -emit-library -enable-experimental-feature Embedded -g -Xlinker --gc-sections

PLUGIN_OBJECTS := $(addprefix $(EMBEDDED_DIR)/,LV2Atoms.o TactusEngine.o TactusModel.o TactusLV2.o clv2-shim.c.o clv2-descriptor.c.o)
$(EMBEDDED_DIR)/tactus.so: $(PLUGIN_OBJECTS) Sources/Formats/LV2/TactusLV2/exports.map
	$(BUILD_GATE) $(EMBEDDED_LINK) -o $@ $(PLUGIN_OBJECTS) -Xlinker --version-script=Sources/Formats/LV2/TactusLV2/exports.map

EDITOR_OBJECTS := $(addprefix $(EMBEDDED_DIR)/,LV2Atoms.o TactusEngine.o TactusModel.o TactusEditorModel.o TactusUI.o clv2-shim.c.o clv2ui-descriptor.c.o)
$(EMBEDDED_DIR)/tactus_ui.so: $(EDITOR_OBJECTS) Sources/Formats/LV2/TactusUI/exports.map
	$(BUILD_GATE) $(EMBEDDED_LINK) -o $@ $(EDITOR_OBJECTS) -lX11 -lcairo -lm \
	    -Xlinker --version-script=Sources/Formats/LV2/TactusUI/exports.map -Xlinker -z -Xlinker defs

# The CLAP plugin (issue 31), with the editor linked in (its gui extension):
# libc (with libm), libX11 and libcairo, as tactus_ui.so; exporting clap_entry alone.
CLAP_OBJECTS := $(addprefix $(EMBEDDED_DIR)/,LV2Atoms.o TactusEngine.o TactusModel.o TactusEditorModel.o TactusUI.o TactusCLAP.o \
    clv2-shim.c.o clv2ui-descriptor.c.o cclap-entry.c.o cclap-gui.c.o)
$(EMBEDDED_DIR)/tactus.clap: $(CLAP_OBJECTS) Sources/Formats/CLAP/TactusCLAP/exports.map
	$(BUILD_GATE) $(EMBEDDED_LINK) -o $@ $(CLAP_OBJECTS) -lX11 -lcairo -lm \
	    -Xlinker --version-script=Sources/Formats/CLAP/TactusCLAP/exports.map -Xlinker -z -Xlinker defs

# Built, checked (libc, libm, libX11, libcairo alone; clap_entry alone), and put in .build/clap (a CLAP_PATH folder of its own).
clap: deps $(EMBEDDED_DIR)/tactus.clap
	@needed=$$(readelf -d $(EMBEDDED_DIR)/tactus.clap | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' '); \
	    [ "$$needed" = "libX11.so.6 libc.so.6 libcairo.so.2 libm.so.6 " ] || { echo "tactus: tactus.clap needs $$needed"; exit 1; }
	@exports=$$(nm -D --defined-only $(EMBEDDED_DIR)/tactus.clap | awk '$$2 ~ /[A-Z]/ {print $$3}' | tr '\n' ' '); \
	    [ "$$exports" = "clap_entry " ] || { echo "tactus: tactus.clap exports $$exports"; exit 1; }
	@mkdir -p $(CLAP_PATH_LOCAL) && cp $(EMBEDDED_DIR)/tactus.clap $(CLAP_PATH_LOCAL)/tactus.clap
	@echo "tactus: built .build/clap/tactus.clap (needs libc, libm, libX11 and libcairo only, exports clap_entry only; CLAP_PATH=$(CLAP_PATH_LOCAL) finds it)"

plugin: deps $(EMBEDDED_DIR)/tactus.so $(EMBEDDED_DIR)/tactus_ui.so
	cp $(EMBEDDED_DIR)/tactus.so plugin.lv2/tactus.so
	cp $(EMBEDDED_DIR)/tactus_ui.so plugin.lv2/tactus_ui.so
	@mkdir -p $(LV2_PATH_LOCAL) && ln -sfn ../../plugin.lv2 $(LV2_PATH_LOCAL)/tactus.lv2
	@echo "tactus: built plugin.lv2/tactus.so and its editor tactus_ui.so (LV2_PATH=$(LV2_PATH_LOCAL) finds them)"

embedded-check: plugin

validate: plugin deps-test
	@lv2_validate plugin.lv2/*.ttl > .build/lv2_validate.log 2>&1 || true
	@grep -q "Found 0 errors" .build/lv2_validate.log || { cat .build/lv2_validate.log; echo "tactus: lv2_validate found errors"; exit 1; }
	@grep "Found 0 errors" .build/lv2_validate.log
	@deps=$$(ldd plugin.lv2/tactus.so | grep -v -e 'linux-vdso' -e 'libc.so' -e 'ld-linux' || true); \
	    [ -z "$$deps" ] || { echo "tactus: tactus.so needs more than libc: $$deps"; exit 1; }
	@exports=$$(nm -D --defined-only plugin.lv2/tactus.so | awk '$$2 ~ /[A-Z]/ {print $$3}' | tr '\n' ' '); \
	    [ "$$exports" = "lv2_descriptor " ] || { echo "tactus: tactus.so exports $$exports"; exit 1; }
	@echo "tactus: tactus.so needs libc only and exports lv2_descriptor only"
	@needed=$$(readelf -d plugin.lv2/tactus_ui.so | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' '); \
	    [ "$$needed" = "libX11.so.6 libc.so.6 libcairo.so.2 libm.so.6 " ] || { echo "tactus: tactus_ui.so needs $$needed"; exit 1; }
	@exports=$$(nm -D --defined-only plugin.lv2/tactus_ui.so | awk '$$2 ~ /[A-Z]/ {print $$3}' | tr '\n' ' '); \
	    [ "$$exports" = "lv2ui_descriptor " ] || { echo "tactus: tactus_ui.so exports $$exports"; exit 1; }
	@echo "tactus: tactus_ui.so needs libc (with libm), libX11 and libcairo only and exports lv2ui_descriptor only"

# Load and run the bundle with /opt/swift hidden under an empty tmpfs, in a
# private mount namespace (needs root, as CI has): no Swift toolchain needed.
load-without-swift: plugin deps-test
	@if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null; then \
	    unshare -m sh -c 'mount -t tmpfs none /opt/swift && echo "tactus: /opt/swift hidden: $$(ls -A /opt/swift | wc -l) entries" && \
	        LV2_PATH=$(LV2_PATH_LOCAL) lv2bench urn:tactus:sequencer && \
	        python3 -c "import ctypes; d = ctypes.CDLL(\"plugin.lv2/tactus_ui.so\").lv2ui_descriptor; d.restype = ctypes.c_void_p; assert d(0)" ' && \
	    echo "tactus: the plugin and its editor load (and the plugin runs) with no Swift toolchain"; \
	else echo "tactus: skipping the no-Swift load check (needs root for a mount namespace)"; fi

# make install into a scratch folder, then the installed tactus run with
# /opt/swift hidden (as load-without-swift does; needs root): its version, a
# check, a render.
TACTUS_SIZE_LIMIT := 20000000
cli-without-swift: cli
	@rm -rf .build/install-check && $(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/.build/install-check > /dev/null
	@for f in lib/lv2/tactus.lv2/tactus.so lib/lv2/tactus.lv2/manifest.ttl lib/clap/tactus.clap bin/tactus; do \
	    [ -f .build/install-check/usr/$$f ] || { echo "tactus: make install did not install $$f"; exit 1; }; done
	@rm -rf .build/uninstall-check && cp -a .build/install-check .build/uninstall-check && $(MAKE) --no-print-directory uninstall PREFIX=/usr DESTDIR=$(CURDIR)/.build/uninstall-check > /dev/null && \
	    left=$$(find .build/uninstall-check -type f | sed 's|^.build/uninstall-check||') && rm -rf .build/uninstall-check && \
	    { [ -z "$$left" ] || { echo "tactus: make uninstall left $$left"; exit 1; }; }
	@echo "tactus: make install put tactus.lv2, tactus.clap and tactus in lib/lv2, lib/clap and bin of PREFIX; make uninstall took them away"
	@echo "tactus: tactus needs: $$(readelf -d .build/install-check/usr/bin/tactus | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')($$(ldd .build/install-check/usr/bin/tactus | grep -c '=>') libraries in all)"
	@if ldd .build/install-check/usr/bin/tactus | grep -q libswift; then echo "tactus: the installed tactus needs the Swift runtime"; exit 1; fi
	@size=$$(stat -c %s .build/install-check/usr/bin/tactus); echo "tactus: the installed tactus is $$size bytes, stripped"; \
	    if readelf -S .build/install-check/usr/bin/tactus | grep -q -e '\.debug_' -e '\.symtab'; then echo "tactus: the installed tactus is not stripped"; exit 1; fi; \
	    if [ "$$size" -gt $(TACTUS_SIZE_LIMIT) ]; then echo "tactus: the installed tactus is larger than $(TACTUS_SIZE_LIMIT) bytes (Foundation linked in again?)"; exit 1; fi
	@if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null; then \
	    unshare -m sh -c 'mount -t tmpfs none /opt/swift && echo "tactus: /opt/swift hidden: $$(ls -A /opt/swift | wc -l) entries" && \
	        .build/install-check/usr/bin/tactus --version && .build/install-check/usr/bin/tactus check examples/demo.pattern && \
	        .build/install-check/usr/bin/tactus render --pattern examples/demo.pattern --transport examples/demo.transport | grep -c " 9" ' && \
	    echo "tactus: the installed tactus runs with no Swift toolchain"; \
	else echo "tactus: skipping the no-Swift run of tactus (needs root for a mount namespace)"; fi

# Every test is written with swift-testing: XCTest, which would report
# "Executed 0 tests", is not run.
test-unit:
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --build-tests
	$(BUILD_GATE) $(SWIFT) test -c $(CONFIG) --skip-build --disable-xctest

# The CLAP plugin through the project's CLAP host, against tactus render (Tests/Formats/CLAP/clap-test).
clap-test: clap
	@scripts/install-deps xvfb valgrind
	@scripts/install-deps qtractor || echo "tactus: qtractor cannot be installed: its scan check is skipped"
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus-claphost
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product TactusRTCheck
	@BUILD=$(BUILD_DIR) CLAP=$(EMBEDDED_DIR)/tactus.clap Tests/Formats/CLAP/clap-test

# The command line as a person meets it: messages, exit statuses, a full disk, the prompt.
cli-test: tools deps-test
	@BUILD=$(BUILD_DIR) Tests/CommandLine/cli-test

# tactus jack under a session manager (docs/jack.md, "In a session manager"): a
# stand-in NSM server in Python (python3-liblo) opens, edits, saves, switches and
# ends sessions on a JACK dummy server of its own (TACTUS_NSM_TEST_JACK).
nsm-test: tools deps-test
	@BUILD=$(BUILD_DIR) $(PYTHON) Tests/Formats/JACK/nsm-test

# A clean run prints no warning: within make test (and every target it builds
# on the way), each build and the unit tests run under scripts/no-warnings,
# which fails on a compiler or linker warning, a glib CRITICAL line or
# XCTest's "Executed 0 tests". A plain make does not (a newer compiler's
# deprecation must not stop a user's build).
test: BUILD_GATE := scripts/no-warnings
test: deps deps-test nolocks-check plugin clap validate load-without-swift cli-without-swift test-unit cli-test nsm-test clap-test bounce-test readme-test editor-test fuzz-smoke host-test-if-possible
	@echo "tactus: all tests passed"

# The engine's rule (docs/architecture.md): every public entry point of
# TactusEngine is @_noLocks, apart from the construction-time allow-list.
nolocks-check:
	@scripts/nolocks-check

# README.md against the program (scripts/readme-check): its commands run and
# their output compared, its synopsis, package list, tree, libraries and counts.
readme-test: tools deps-test
	@BUILD=$(BUILD_DIR) scripts/readme-check

# tactus bounce as a person meets it: files, messages, a full disk (docs/bounce.md).
bounce-test: tools deps-test
	@BUILD=$(BUILD_DIR) Tests/CommandLine/bounce-test

# The editor (tactus_ui.so) as a person meets it, headless: two instances in the
# project's test host (Sources/Hosts/tactus-editorhost) under Xvfb, real X input
# through xdotool, messages and pixels checked, a monkey, valgrind (Tests/Editor);
# planetblupi's MIDI music is the real material a frame is timed on.
EDITOR_TEST_PACKAGES := xvfb xdotool imagemagick valgrind planetblupi-music-midi

editor-test: plugin tools
	@scripts/install-deps $(EDITOR_TEST_PACKAGES)
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus-editorhost
	@BUILD=$(BUILD_DIR) Tests/Editor/editor-test

HOST_PACKAGES := ardour jalv jackd2 qtractor xvfb xdotool imagemagick

tools: deps deps-test
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus-lv2host
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product tactus-hosttest
	$(BUILD_GATE) $(SWIFT) build -c $(CONFIG) --product TactusRTCheck

# The live host tests need Ardour 7, jalv and Qtractor (with Xvfb and xdotool); they install them if missing.
host-test: plugin clap tools
	@scripts/install-deps $(HOST_PACKAGES)
	@BUILD=$(BUILD_DIR) scripts/host-test

# In make test: the live host tests run when the hosts can be installed; the
# recorded sessions (Tests/Fixtures) are replayed by the unit tests either way.
# A JACK session the machine's xruns spoil is tried again (up to
# TACTUS_HOST_TEST_TRIES times); spoiled in every try, it fails.
host-test-if-possible: plugin clap tools
	@if scripts/install-deps $(HOST_PACKAGES); then BUILD=$(BUILD_DIR) scripts/host-test; \
	else echo "tactus: the live hosts (Ardour, jalv, Qtractor) cannot be installed here: live host tests skipped (recordings replayed)"; fi

test-long: deps plugin
	$(SWIFT) build -c $(CONFIG) --build-tests
	TACTUS_PROPERTY_BLOCKS=10000000 $(SWIFT) test -c $(CONFIG) --skip-build --disable-xctest \
	    --filter 'DifferentialTests|PartitionInvarianceTests'

demo: plugin cli deps-demo
	@BUILD=$(BUILD_DIR) scripts/demo-jack
	@$(BUILD_DIR)/tactus bounce examples/demo.pattern --transport examples/demo.transport -o .build/demo.flac --normalize -q
	@echo "tactus demo: the demo pattern over examples/demo.transport, through the default SoundFont: $(CURDIR)/.build/demo.flac (peak at -1 dBFS: listen to it)"

demo-offline: cli
	@echo "tactus: examples/demo.pattern over examples/demo.transport (120 bpm, then 133.7 bpm, loop of bar 2)"
	@echo
	@cat examples/demo.pattern
	@echo
	$(BUILD_DIR)/tactus render --pattern examples/demo.pattern --transport examples/demo.transport --annotate

# Benchmarks (BENCHMARKS.md): built in .build-bench, results in .build-bench/results,
# tables written into BENCHMARKS.md, plot in docs/. Takes a few minutes.
BENCH_PACKAGES := build-essential pkg-config lv2-dev liblilv-dev lilv-utils x42-plugins qmidiarp lv2-examples valgrind python3
PYTHON ?= /usr/bin/python3

bench:
	@scripts/install-deps $(BENCH_PACKAGES)
	@$(PYTHON) -c 'import matplotlib' 2>/dev/null || scripts/install-deps python3-matplotlib \
	    || $(PYTHON) -m pip install --quiet matplotlib
	@SWIFT=$(SWIFT) PYTHON=$(PYTHON) scripts/bench
	@scripts/install-deps fluidsynth timidity openttd-openmsx planetblupi-music-midi abcmidi
	@BUILD=$(BUILD_DIR) PYTHON=$(PYTHON) scripts/bench-bounce

# Builds only what is not built yet (or a tactus that needs the Swift runtime,
# as make test leaves it), so that `make && sudo make install` needs no Swift
# toolchain on root's PATH.
install:
	@[ -f plugin.lv2/tactus.so ] && [ -f plugin.lv2/tactus_ui.so ] || $(MAKE) plugin
	@[ -f $(CLAP_PATH_LOCAL)/tactus.clap ] || $(MAKE) clap
	@if [ ! -x $(BUILD_DIR)/tactus ] || ldd $(BUILD_DIR)/tactus | grep -q libswiftCore; then $(MAKE) cli; fi
	install -d $(LV2_INSTALL_DIR)/tactus.lv2
	install -m 644 plugin.lv2/manifest.ttl plugin.lv2/tactus.ttl plugin.lv2/presets.ttl plugin.lv2/editor.ttl $(LV2_INSTALL_DIR)/tactus.lv2/
	install -m 755 plugin.lv2/tactus.so plugin.lv2/tactus_ui.so $(LV2_INSTALL_DIR)/tactus.lv2/
	install -d $(CLAP_INSTALL_DIR)
	install -m 755 $(CLAP_PATH_LOCAL)/tactus.clap $(CLAP_INSTALL_DIR)/tactus.clap
	install -d $(BIN_INSTALL_DIR)
	install -m 755 -s $(BUILD_DIR)/tactus $(BIN_INSTALL_DIR)/tactus
	ln -sf tactus $(BIN_INSTALL_DIR)/tactus-jack
	@echo "tactus: installed $(LV2_INSTALL_DIR)/tactus.lv2, $(CLAP_INSTALL_DIR)/tactus.clap, $(BIN_INSTALL_DIR)/tactus (and tactus-jack, for session managers)"
	@case ":$$PATH:" in *":$(patsubst $(DESTDIR)%,%,$(BIN_INSTALL_DIR)):"*) ;; \
	    *) [ -n "$(DESTDIR)" ] || echo "tactus: $(BIN_INSTALL_DIR) is not on your PATH; add it, or run $(BIN_INSTALL_DIR)/tactus" ;; esac

uninstall:
	rm -rf $(LV2_INSTALL_DIR)/tactus.lv2 $(CLAP_INSTALL_DIR)/tactus.clap $(BIN_INSTALL_DIR)/tactus $(BIN_INSTALL_DIR)/tactus-jack

clean:
	rm -rf .build plugin.lv2/tactus.so plugin.lv2/tactus_ui.so

# --- Robustness (docs/robustness.md): fuzzing, sanitizers, the soak -----------------------
#
# libFuzzer and the sanitizers need the plugin's modules built as normal Swift,
# with an in-process host (Sources/Hosts/InProcessHost). The fuzzers are built
# with swiftc, not SwiftPM, because libFuzzer brings its own main. Coverage is
# recorded in the plugin's modules only (the atom codec, the engine, the model,
# the editor's model, the LV2 and CLAP glue), as edge counters: the comparison tracing that -sanitize=fuzzer adds
# cost 2.5 times the executions in the renderer's inner loop, and the targets
# build their structured values themselves (the parser has a dictionary). The
# fuzz targets' own checks (Fuzz/Targets) are built with ASan alone.
# FUZZ_ASAN=0 builds the fuzzers without AddressSanitizer (Swift's own bounds and
# overflow checks stay): two to three times the executions, for the long counts.
FUZZ_ASAN    ?= 1
ifeq ($(FUZZ_ASAN),1)
FUZZ_DIR     := .build-fuzz/libfuzzer
FUZZ_SAN     := -sanitize=address
FUZZ_CSAN    := -fsanitize=address
FUZZ_LINK    := -sanitize=fuzzer,address
else
FUZZ_DIR     := .build-fuzz/libfuzzer-noasan
FUZZ_SAN     := -sanitize=fuzzer
FUZZ_CSAN    :=
FUZZ_LINK    := -sanitize=fuzzer
endif
FUZZ_TARGETS := plugin-run pattern-parser state-restore smf-reader editor-sync clap-process
FUZZ_SECONDS ?= 600
FUZZ_RUNS    ?= 10000000
FUZZ_SWIFTC  := swiftc -swift-version 6 -O -g -parse-as-library -package-name tactus -I $(FUZZ_DIR) \
    -I Sources/C/CLV2/include -I Sources/C/CLV2Descriptor/include -I Sources/C/CInProcessHost/include \
    -I Sources/C/CCLAP/include -I Sources/C/CCLAPEntry/include
FUZZ_COVERAGE := -sanitize-coverage=edge,inline-8bit-counters,pc-table

# (Kept: make would delete these as intermediates of the pattern rule below.)
.SECONDARY: $(FUZZ_DIR)/clv2-shim.o $(FUZZ_DIR)/clv2-descriptor.o $(FUZZ_DIR)/cclap-entry.o $(FUZZ_DIR)/cclap-gui.o

$(FUZZ_DIR)/clv2-shim.o: Sources/C/CLV2/shim.c Sources/C/CLV2/include/CLV2.h
	@mkdir -p $(FUZZ_DIR)
	@echo "tactus: fuzz: $(@F)"
	@clang -c -O1 -g $(FUZZ_CSAN) -I Sources/C/CLV2/include $< -o $@

$(FUZZ_DIR)/clv2-descriptor.o: Sources/C/CLV2Descriptor/descriptor.c Sources/C/CLV2/include/CLV2.h
	@mkdir -p $(FUZZ_DIR)
	@echo "tactus: fuzz: $(@F)"
	@clang -c -O1 -g $(FUZZ_CSAN) -I Sources/C/CLV2/include -I Sources/C/CLV2Descriptor/include $< -o $@

$(FUZZ_DIR)/cclap-%.o: Sources/C/CCLAPEntry/%.c $(wildcard Sources/C/CCLAP*/include/*.h)
	@mkdir -p $(FUZZ_DIR)
	@echo "tactus: fuzz: $(@F)"
	@clang -c -O1 -g $(FUZZ_CSAN) -I Sources/C/CCLAP/include -I Sources/C/CCLAPEntry/include $< -o $@

$(FUZZ_DIR)/log_capture.o: Sources/C/CInProcessHost/log_capture.c Sources/C/CInProcessHost/include/CInProcessHost.h
	@mkdir -p $(FUZZ_DIR)
	@echo "tactus: fuzz: $(@F)"
	@clang -c -O1 -g $(FUZZ_CSAN) -I Sources/C/CInProcessHost/include $< -o $@

# $(call FUZZ_MODULE,NAME,FOLDER,IMPORTED MODULES,EXTRA FLAGS): one module, whole-module.
define FUZZ_MODULE
$(FUZZ_DIR)/$(1).o: $(shell find $(2) -name '*.swift' 2>/dev/null | sort) $(foreach m,$(3),$(FUZZ_DIR)/$(m).o) $(wildcard Sources/C/*/include/*.h)
	@mkdir -p $(FUZZ_DIR)
	@echo "tactus: fuzz: the $(1) module ($(2))"
	@$(FUZZ_SWIFTC) -module-name $(1) $(FUZZ_SAN) $(4) -wmo -emit-module \
	    -emit-module-path $(FUZZ_DIR)/$(1).swiftmodule -c $$(filter %.swift,$$^) -o $$@
endef
# The plugin's modules, with libFuzzer's edge counters.
$(eval $(call FUZZ_MODULE,LV2Atoms,Sources/Formats/LV2/LV2Atoms,,$(FUZZ_COVERAGE)))
$(eval $(call FUZZ_MODULE,TactusEngine,Sources/Engine,,$(FUZZ_COVERAGE)))
$(eval $(call FUZZ_MODULE,TactusModel,Sources/Model/TactusModel,TactusEngine,$(FUZZ_COVERAGE)))
$(eval $(call FUZZ_MODULE,TactusEditorModel,Sources/Model/TactusEditorModel,TactusEngine TactusModel,$(FUZZ_COVERAGE)))
$(eval $(call FUZZ_MODULE,TactusLV2,Sources/Formats/LV2/TactusLV2,LV2Atoms TactusEngine TactusModel,$(FUZZ_COVERAGE)))
$(eval $(call FUZZ_MODULE,TactusCLAP,Sources/Formats/CLAP/TactusCLAP,LV2Atoms TactusEngine TactusModel,$(FUZZ_COVERAGE)))
# The host's side and the targets' own checks, without coverage: the fuzzers steer the plugin, not the host.
$(eval $(call FUZZ_MODULE,FileIO,Sources/Tools/FileIO,TactusEngine TactusModel,))
$(eval $(call FUZZ_MODULE,TactusCommandLine,Sources/Tools/TactusCommandLine,FileIO,))
$(eval $(call FUZZ_MODULE,TactusOffline,Sources/Tools/TactusOffline,TactusEngine TactusModel TactusCommandLine,))
$(eval $(call FUZZ_MODULE,LV2HostKit,Sources/Hosts/LV2HostKit,LV2Atoms TactusOffline,))
$(eval $(call FUZZ_MODULE,TactusInProcessHost,Sources/Hosts/InProcessHost,LV2HostKit TactusLV2,))
$(eval $(call FUZZ_MODULE,TactusFuzzTargets,Fuzz/Targets,TactusInProcessHost TactusEditorModel TactusCLAP TactusOffline,))
FUZZ_MODULES := LV2Atoms TactusEngine TactusModel TactusEditorModel TactusLV2 TactusCLAP FileIO TactusCommandLine TactusOffline LV2HostKit TactusInProcessHost TactusFuzzTargets

# (The linker's "Cannot export local symbol" warnings about ASan's helpers are noise.)
$(FUZZ_DIR)/fuzz-%: Fuzz/Entry/fuzz-%.swift $(foreach m,$(FUZZ_MODULES),$(FUZZ_DIR)/$(m).o) \
	    $(FUZZ_DIR)/clv2-shim.o $(FUZZ_DIR)/clv2-descriptor.o $(FUZZ_DIR)/cclap-entry.o $(FUZZ_DIR)/cclap-gui.o $(FUZZ_DIR)/log_capture.o
	@rm -f $@
	@echo "tactus: fuzz: $(@F), linked with libFuzzer"
	@$(FUZZ_SWIFTC) -module-name fuzz_$(subst -,_,$*) $(FUZZ_LINK) $^ -o $@ 2>&1 | grep -v "Cannot export local symbol" || true
	@test -x $@

fuzz-build: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))

# Runs every target for $(1) seconds or $(2) executions, in parallel; new inputs
# go to .build-fuzz/$(3)/TARGET, libFuzzer's output to .build-fuzz/$(3)/TARGET.log.
FUZZ_EACH = mkdir -p .build-fuzz/$(3); pids=; for t in $(FUZZ_TARGETS); do \
	    scripts/fuzz-run $(FUZZ_DIR)/fuzz-$$t Fuzz/Corpus/$$t .build-fuzz/$(3)/$$t $(1) $(2) .build-fuzz/$(3)/$$t.log & pids="$$pids $$!"; \
	done; status=0; for p in $$pids; do wait $$p || status=1; done; exit $$status

fuzz: deps fuzz-build
	@$(call FUZZ_EACH,$(FUZZ_SECONDS),$(FUZZ_RUNS),corpus)

# In make test: each target a few seconds (the seed corpora first).
fuzz-smoke: deps fuzz-build
	@$(call FUZZ_EACH,5,$(FUZZ_RUNS),smoke)

# 24 simulated hours at 96 kHz for each kind of host, against the reference model
# (Tests/Engine/TactusEngineTests/SoakTests.swift); make test runs one simulated hour of it.
SOAK_HOURS ?= 24
soak: deps
	$(SWIFT) build -c $(CONFIG) --build-tests
	TACTUS_SOAK_HOURS=$(SOAK_HOURS) $(SWIFT) test -c $(CONFIG) --skip-build --disable-xctest --filter SoakTests

# Every test under a sanitizer, each in its own build folder. Every target builds
# with it (SwiftPM builds the plugin's modules as normal Swift; the bundle's
# Embedded .so files come from make plugin). Under ASan the plugin's tests
# through tactus-lv2host (Tests/Formats/LV2/TactusLV2Tests) load the sanitized
# hosted plugin, SwiftPM's libTactusLV2.so (a bundle in the build folder), into
# the sanitized test host; under TSan they load plugin.lv2/tactus.so, because a
# sanitized one needs __tsan_external_write, which the host's TSan runtime does
# not export (lilv: "undefined symbol"). The in-process tests (the same target)
# run the same modules under both, threads included. The Swift runtime's crash handler is turned off: it would run
# inside a sanitizer's report.
SANITIZED_BUNDLE = mkdir -p $(1)/plugin.lv2 && cp plugin.lv2/*.ttl $(1)/plugin.lv2/ && cp $(1)/$(CONFIG)/libTactusLV2.so $(1)/plugin.lv2/tactus.so

test-asan: deps
	$(SWIFT) build -c $(CONFIG) --sanitize=address --scratch-path .build-asan --build-tests
	@$(call SANITIZED_BUNDLE,.build-asan)
	SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp TACTUS_LV2_BUNDLE=$(CURDIR)/.build-asan/plugin.lv2 \
	    $(SWIFT) test -c $(CONFIG) --sanitize=address --scratch-path .build-asan --skip-build --disable-xctest

test-tsan: deps plugin
	$(SWIFT) build -c $(CONFIG) --sanitize=thread --scratch-path .build-tsan --build-tests
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 \
	    $(SWIFT) test -c $(CONFIG) --sanitize=thread --scratch-path .build-tsan --skip-build --disable-xctest
