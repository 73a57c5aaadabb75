# SPDX-License-Identifier: GPL-2.0
#
# make                 build tlbpath.ko for the running kernel (or KDIR=...)
# make install         install it for that kernel (modules_install, depmod)
# make arm64           tlbpath.ko cross-built for Debian's arm64 6.1 kernel (make deps)
# make check           unit tests, DKMS builds, in-VM tests on Debian's kernels
# make demo            boot a Debian kernel in QEMU and show tlbpath at work
# make unit            user-space unit tests only (TAP, under prove)
# make tools           scripts/tlbpath-geometry (CPUID dumps or this machine)
# make check-long      the long tier: 50 load/unload cycles under stress-ng
# make bench           the benchmark suite in QEMU (TCG), into bench/results/
# make bench-quick     a tiny self-checking run of it (make check runs it)
# make bench-host      the same workloads on this machine's kernel and CPU (root)
# make sim             bench/tlbsim: the workloads' traces on simulated TLBs of real
#                      CPUs, every flush policy, into bench/tlbsim/results/
# make sim-quick       a tiny self-checking run of it (seconds)
# make deb             build/deb/tlbpath-dkms_<version>_all.deb (Debian DKMS package)

KERNELRELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
TLBPATH_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)

CC ?= gcc
UNIT_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude
UNIT_TESTS := tests/unit/test_geometry tests/unit/test_policy tests/unit/test_tlbi \
	tests/unit/test_adapt

TOOLS := scripts/tlbpath-geometry
PREFIX ?= /usr/local

.PHONY: all module arm64 install clean unit check check-long demo deps tools \
	bench bench-quick bench-host deb sim sim-quick

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) TLBPATH_VERSION=$(TLBPATH_VERSION) modules

# The arm64 headers unpacked by scripts/install-arm64.sh, built with the
# host's own kbuild tools.
ARM64_KDIR = $(shell bash -c '. scripts/vmlib-arm64.sh && k=$$(find_kernel_arm64) && [ -n "$$k" ] && arm64_kdir $$k')

arm64:
	@test -n "$(ARM64_KDIR)" || { echo "no arm64 kernel headers: run make deps" >&2; exit 1; }
	$(MAKE) -C $(ARM64_KDIR) M=$(CURDIR) ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		TLBPATH_VERSION=$(TLBPATH_VERSION) modules

install: module tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KERNELRELEASE)
	install -D -m 0755 scripts/tlbpath-geometry $(DESTDIR)$(PREFIX)/bin/tlbpath-geometry

tools: $(TOOLS)

scripts/tlbpath-geometry: tools/tlbpath-geometry.c src/geometry.c include/tlbpath/*.h
	$(CC) $(UNIT_CFLAGS) -o $@ tools/tlbpath-geometry.c src/geometry.c

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -f $(UNIT_TESTS) $(TOOLS) tests/unit/*.o
	rm -rf build

tests/unit/test_%: tests/unit/test_%.c src/geometry.c src/policy.c include/tlbpath/*.h tests/unit/tap.h
	$(CC) $(UNIT_CFLAGS) -o $@ $< src/geometry.c src/policy.c

tests/unit/test_tlbi: tests/unit/test_tlbi.c src/tlbi.c include/tlbpath/*.h tests/unit/tap.h
	$(CC) $(UNIT_CFLAGS) -o $@ $< src/tlbi.c

tests/unit/test_adapt: tests/unit/test_adapt.c src/adapt.c include/tlbpath/*.h tests/unit/tap.h
	$(CC) $(UNIT_CFLAGS) -o $@ $< src/adapt.c

unit: $(UNIT_TESTS) $(TOOLS)
	prove -v $(UNIT_TESTS) tests/unit/*.t

deps:
	scripts/install-deps.sh

# Unit tests, DKMS builds, then the in-VM tests on 6.1, 6.12 and sid (7.x).
check: deps $(UNIT_TESTS) $(TOOLS)
	prove -v $(UNIT_TESTS) tests/unit/*.t tests/host/*.t tests/vm/*.t
	QUICK=1 scripts/bench.sh
	QUICK=1 bench/tlbsim/run.sh

check-long: deps
	prove -v tests/long/*.t

bench: deps
	scripts/bench.sh

bench-quick: deps
	QUICK=1 scripts/bench.sh

bench-host:
	bench/bench-host.sh

# From the tracked module sources, in a scratch copy: dpkg-buildpackage
# writes next to the source tree.
deb:
	rm -rf build/deb && mkdir -p build/deb/tlbpath-$(TLBPATH_VERSION)
	git ls-files -z debian src include Kbuild Makefile dkms.conf LICENSE README.md | \
		xargs -0 cp --parents -t build/deb/tlbpath-$(TLBPATH_VERSION)
	cd build/deb/tlbpath-$(TLBPATH_VERSION) && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	@ls build/deb/*.deb

demo: deps
	scripts/demo.sh

sim:
	bench/tlbsim/run.sh

sim-quick:
	QUICK=1 bench/tlbsim/run.sh
