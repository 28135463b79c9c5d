# Tactus: sample-accurate MIDI pattern sequencer, as an LV2 plugin and a command line.
#
#   make               the plugin bundle (plugin.lv2/tactus.so) and the command line
#   make test          every test (installs what a fresh Debian machine lacks)
#   make demo          Tactus in jalv on a private JACK server, recorded and checked against tactus render
#   make demo-offline  render the demo pattern over a transport with a tempo change and a loop
#   make install       the bundle into ~/.lv2, or $(DESTDIR)$(PREFIX)/lib/lv2 when PREFIX is given
#   make test-long     the property tests with 10^7 blocks
#   make host-test     Tactus live in Ardour 7 (headless) and jalv on JACK, recorded and replayed

SWIFT      ?= swift
CONFIG     ?= release
PREFIX     ?=
DESTDIR    ?=
BUILD_DIR  := .build/$(CONFIG)
LV2_PATH_LOCAL := $(CURDIR)/.build/lv2
DEB_PACKAGES := build-essential pkg-config lv2-dev liblilv-dev lilv-utils sordi jackd2 libjack-jackd2-dev jalv
ifeq ($(PREFIX),)
LV2_INSTALL_DIR := $(DESTDIR)$(HOME)/.lv2
else
LV2_INSTALL_DIR := $(DESTDIR)$(PREFIX)/lib/lv2
endif

.PHONY: host-test host-test-if-possible tools demo-offline all deps plugin cli validate load-without-swift embedded-check test test-unit test-long demo install uninstall clean

all: plugin cli

deps:
	@scripts/install-deps $(DEB_PACKAGES)

cli: deps
	$(SWIFT) build -c $(CONFIG) --product tactus

# The plugin target compiles the core in Embedded Swift: a slip out of its
# subset, or an allocation on the audio path, fails here.
plugin: deps
	$(SWIFT) build -c $(CONFIG) --product TactusLV2
	cp $(BUILD_DIR)/libTactusLV2.so plugin.lv2/tactus.so
	@mkdir -p $(LV2_PATH_LOCAL) && ln -sfn ../../plugin.lv2 $(LV2_PATH_LOCAL)/tactus.lv2
	@echo "tactus: built plugin.lv2/tactus.so (LV2_PATH=$(LV2_PATH_LOCAL) finds it)"

embedded-check: plugin

validate: plugin
	@lv2_validate plugin.lv2/*.ttl > .build/lv2_validate.log 2>&1 || true
	@grep -q "Found 0 errors" .build/lv2_validate.log || { cat .build/lv2_validate.log; echo "tactus: lv2_validate found errors"; exit 1; }
	@grep "Found 0 errors" .build/lv2_validate.log
	@deps=$$(ldd plugin.lv2/tactus.so | grep -v -e 'linux-vdso' -e 'libc.so' -e 'ld-linux' || true); \
	    [ -z "$$deps" ] || { echo "tactus: tactus.so needs more than libc: $$deps"; exit 1; }
	@exports=$$(nm -D --defined-only plugin.lv2/tactus.so | awk '$$2 ~ /[A-Z]/ {print $$3}' | tr '\n' ' '); \
	    [ "$$exports" = "lv2_descriptor " ] || { echo "tactus: tactus.so exports $$exports"; exit 1; }
	@echo "tactus: tactus.so needs libc only and exports lv2_descriptor only"

# Load and run the bundle with /opt/swift hidden under an empty tmpfs, in a
# private mount namespace (needs root, as CI has): no Swift toolchain needed.
load-without-swift: plugin
	@if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null; then \
	    unshare -m sh -c 'mount -t tmpfs none /opt/swift && echo "tactus: /opt/swift hidden: $$(ls -A /opt/swift | wc -l) entries" && \
	        LV2_PATH=$(LV2_PATH_LOCAL) lv2bench urn:tactus:sequencer' && \
	    echo "tactus: the plugin loads and runs with no Swift toolchain"; \
	else echo "tactus: skipping the no-Swift load check (needs root for a mount namespace)"; fi

test-unit:
	$(SWIFT) build -c $(CONFIG) --build-tests
	$(SWIFT) test -c $(CONFIG) --skip-build

test: deps plugin validate load-without-swift test-unit host-test-if-possible
	@echo "tactus: all tests passed"

HOST_PACKAGES := ardour jalv jackd2

tools: deps
	$(SWIFT) build -c $(CONFIG) --product tactus
	$(SWIFT) build -c $(CONFIG) --product tactus-lv2host
	$(SWIFT) build -c $(CONFIG) --product tactus-hosttest
	$(SWIFT) build -c $(CONFIG) --product TactusRTCheck

# The live host tests need Ardour 7 and jalv; they install them if missing.
host-test: plugin tools
	@scripts/install-deps $(HOST_PACKAGES)
	@BUILD=$(BUILD_DIR) scripts/host-test

# In make test: the live host tests run when the hosts can be installed; the
# recorded sessions (Tests/Fixtures) are replayed by the unit tests either way.
host-test-if-possible: plugin tools
	@if scripts/install-deps $(HOST_PACKAGES); then BUILD=$(BUILD_DIR) scripts/host-test; \
	else echo "tactus: Ardour and jalv cannot be installed here: live host tests skipped (recordings replayed)"; fi

test-long: deps plugin
	$(SWIFT) build -c $(CONFIG) --build-tests
	TACTUS_PROPERTY_BLOCKS=10000000 $(SWIFT) test -c $(CONFIG) --skip-build \
	    --filter 'DifferentialTests|PartitionInvarianceTests'

demo: plugin cli
	@BUILD=$(BUILD_DIR) scripts/demo-jack

demo-offline: cli
	@echo "tactus: examples/demo.pattern over examples/demo.transport (120 bpm, then 133.7 bpm, loop of bar 2)"
	@echo
	@cat examples/demo.pattern
	@echo
	$(BUILD_DIR)/tactus render --pattern examples/demo.pattern --transport examples/demo.transport --annotate

install: plugin
	install -d $(LV2_INSTALL_DIR)/tactus.lv2
	install -m 644 plugin.lv2/manifest.ttl plugin.lv2/tactus.ttl plugin.lv2/presets.ttl $(LV2_INSTALL_DIR)/tactus.lv2/
	install -m 755 plugin.lv2/tactus.so $(LV2_INSTALL_DIR)/tactus.lv2/
	@echo "tactus: installed $(LV2_INSTALL_DIR)/tactus.lv2"

uninstall:
	rm -rf $(LV2_INSTALL_DIR)/tactus.lv2

clean:
	rm -rf .build plugin.lv2/tactus.so
