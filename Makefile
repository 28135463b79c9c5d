# Tactus: sample-accurate MIDI pattern sequencer.
#
#   make            release build of the command line (.build/release/tactus)
#   make test       every test (installs what a fresh Debian machine lacks)
#   make test-long  the property tests with 10^7 blocks
#   make demo       render the demo pattern over a transport with a tempo change and a loop

SWIFT      ?= swift
SWIFTC     ?= swiftc
CONFIG     ?= release
BUILD_DIR  := .build/$(CONFIG)
DEB_BUILD  := build-essential pkg-config
CORE_SRC   := $(shell find Sources/TactusCore -name '*.swift' | sort)

.PHONY: all deps test test-unit test-long embedded-check demo clean

all: deps
	$(SWIFT) build -c $(CONFIG) --product tactus

deps:
	@scripts/install-deps $(DEB_BUILD)

# The core must stay inside Embedded Swift's subset (it is compiled into the
# LV2 plugin that way): build it in Embedded mode so a slip fails here.
embedded-check:
	@mkdir -p .build/embedded
	$(SWIFTC) -enable-experimental-feature Embedded -wmo -parse-as-library -Osize \
	    -module-name TactusCore -c $(CORE_SRC) -o .build/embedded/TactusCore.o
	@echo "tactus: TactusCore builds in Embedded Swift"

test-unit:
	$(SWIFT) build -c $(CONFIG) --build-tests
	$(SWIFT) test -c $(CONFIG) --skip-build

test: deps embedded-check test-unit
	@echo "tactus: all tests passed"

test-long: deps
	$(SWIFT) build -c $(CONFIG) --build-tests
	TACTUS_PROPERTY_BLOCKS=10000000 $(SWIFT) test -c $(CONFIG) --skip-build \
	    --filter 'DifferentialTests|PartitionInvarianceTests'

demo: all
	@echo "tactus: examples/demo.pattern over examples/demo.transport (120 bpm, then 133.7 bpm, loop of bar 2)"
	@echo
	@cat examples/demo.pattern
	@echo
	$(BUILD_DIR)/tactus render --pattern examples/demo.pattern --transport examples/demo.transport --annotate

clean:
	rm -rf .build
