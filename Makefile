# SPDX-License-Identifier: GPL-2.0
#
# make                 build tlbpath.ko for the running kernel (or KDIR=...)
# make install         install it for that kernel (modules_install, depmod),
#                      the tools and the man pages (PREFIX, DESTDIR)
# make install-tools   the tools and their man pages only (tlbpath-tools.deb)
# make arm64           tlbpath.ko cross-built for Debian's arm64 6.1 kernel (make deps)
# make check           unit tests, DKMS builds, in-VM tests on Debian's kernels
# make demo            boot a Debian kernel in QEMU and show tlbpath at work
# make unit            user-space unit tests only (TAP, under prove)
# make tools           tools/tlbpath-geometry (CPUID dumps or this machine) and
#                      tools/tlbpath-probe (what this machine's flushes cost)
# make check-long      the long tier: 50 load/unload cycles under stress-ng
# make check-debug     the debug tier: a kernel with KASAN, lockdep, kmemleak and
#                      fault injection (built once, cached), tlbpath tested in it
# make bench           the benchmark suite in QEMU (TCG), into bench/results/
# make bench-quick     a tiny self-checking run of it (make check runs it)
# make bench-host      the same workloads on this machine's kernel and CPU (root)
# make bench-overhead  the hook's own cost in guest instructions (QEMU -icount),
#                      into bench/results/overhead.md
# make sim             bench/tlbsim: the workloads' traces on simulated TLBs of real
#                      CPUs, every flush policy, into bench/tlbsim/results/
# make sim-quick       a tiny self-checking run of it (seconds)
# make traces          bench/traces: record the corpus of real programs (QEMU 10 plugin,
#                      a Debian root) into /var/cache/tlbpath/traces, corpus.tsv
# make dist            build/tlbpath-<version>.tar.xz from the tracked files
# make deb             build/deb/tlbpath-dkms_<version>_all.deb (Debian DKMS package)
#                      and build/deb/tlbpath-tools_<version>_amd64.deb; needs no .git

KERNELRELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
# The one place the version is written: dkms.conf (DKMS reads it there).
TLBPATH_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)

CC ?= gcc
UNIT_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude
UNIT_TESTS := tests/unit/test_geometry tests/unit/test_policy tests/unit/test_tlbi \
	tests/unit/test_adapt tests/unit/test_timectl

TOOLS := tools/tlbpath-geometry tools/tlbpath-probe
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man

.PHONY: all module arm64 install clean unit check check-long check-debug demo deps tools \
	bench bench-quick bench-host bench-overhead deb dist install-tools sim sim-quick traces

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) TLBPATH_VERSION=$(TLBPATH_VERSION) modules

# The arm64 headers unpacked by scripts/install-arm64.sh, built with the
# host's own kbuild tools.
ARM64_KDIR = $(shell bash -c '. scripts/vmlib.sh && k=$$(find_kernel 6.1-arm64) && [ -n "$$k" ] && kdir_of $$k')

arm64:
	@test -n "$(ARM64_KDIR)" || { echo "no arm64 kernel headers: run make deps" >&2; exit 1; }
	$(MAKE) -C $(ARM64_KDIR) M=$(CURDIR) ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		TLBPATH_VERSION=$(TLBPATH_VERSION) modules

install: module install-tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KERNELRELEASE)
	install -D -m 0644 man/tlbpath.4 $(DESTDIR)$(MANDIR)/man4/tlbpath.4

install-tools: tools
	install -D -m 0755 tools/tlbpath-geometry $(DESTDIR)$(SBINDIR)/tlbpath-geometry
	install -D -m 0755 tools/tlbpath-probe $(DESTDIR)$(SBINDIR)/tlbpath-probe
	install -D -m 0755 tools/tlbpath-stat $(DESTDIR)$(SBINDIR)/tlbpath-stat
	install -D -m 0644 man/tlbpath-geometry.8 $(DESTDIR)$(MANDIR)/man8/tlbpath-geometry.8
	install -D -m 0644 man/tlbpath-probe.8 $(DESTDIR)$(MANDIR)/man8/tlbpath-probe.8
	install -D -m 0644 man/tlbpath-stat.8 $(DESTDIR)$(MANDIR)/man8/tlbpath-stat.8

tools: $(TOOLS)

# CPPFLAGS, CFLAGS and LDFLAGS from the environment come last (a
# distribution's hardening flags, dpkg-buildflags).
tools/tlbpath-geometry: tools/tlbpath-geometry.c src/geometry.c include/tlbpath/*.h
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tools/tlbpath-geometry.c src/geometry.c

tools/tlbpath-probe: tools/tlbpath-probe.c src/geometry.c include/tlbpath/*.h dkms.conf
	$(CC) $(UNIT_CFLAGS) -DTLBPATH_VERSION='"$(TLBPATH_VERSION)"' $(CPPFLAGS) $(CFLAGS) \
		$(LDFLAGS) -pthread -o $@ tools/tlbpath-probe.c src/geometry.c -lm

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

tests/unit/test_timectl: tests/unit/test_timectl.c src/timectl.c include/tlbpath/*.h tests/unit/tap.h
	$(CC) $(UNIT_CFLAGS) -o $@ $< src/timectl.c

unit: $(UNIT_TESTS) $(TOOLS)
	prove -v $(UNIT_TESTS) tests/unit/*.t

deps:
	scripts/install-deps.sh

# What the test targets install first; DEPS= skips it (.ci/run, which has
# run make deps once, before two targets run at once).
DEPS ?= deps

# Unit tests, DKMS builds, then the in-VM tests (tests/vm/matrix).
check: $(DEPS) $(UNIT_TESTS) $(TOOLS)
	prove -v $(UNIT_TESTS) tests/unit/*.t tests/host/*.t tests/vm/*.t
	QUICK=1 scripts/bench.sh
	QUICK=1 bench/tlbsim/run.sh

check-long: $(DEPS)
	prove -v tests/long/matrix.t

check-debug: $(DEPS)
	prove -v tests/debug/*.t

bench: $(DEPS)
	scripts/bench.sh

bench-quick: $(DEPS)
	QUICK=1 scripts/bench.sh

bench-host:
	bench/bench-host.sh

bench-overhead: $(DEPS)
	scripts/bench-overhead.sh

# The release tarball: every tracked file, as it is in the work tree, under
# tlbpath-<version>/, owned by root, dated by the last commit.
DIST := build/tlbpath-$(TLBPATH_VERSION).tar.xz
dist:
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make dist needs a git checkout" >&2; exit 1; }
	mkdir -p build
	git ls-files -z | tar --null -T - --transform 's,^,tlbpath-$(TLBPATH_VERSION)/,' \
		--sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct) -cf $(DIST:.xz=)
	xz -f -T1 $(DIST:.xz=)
	@echo $(DIST)

# What the packages are built from, by name, not by git (a release tarball
# has no .git), and without what a build in place left (src/*.o, *.ko).
DEB_FILES := $(wildcard debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/*.dkms debian/*.install debian/*.manpages \
	src/*.[ch] include/tlbpath/*.h tools/*.c man/*.[48]) \
	tools/tlbpath-stat Kbuild Makefile dkms.conf LICENSE README.md

# In a scratch copy: dpkg-buildpackage writes next to the source tree.
deb:
	rm -rf build/deb && mkdir -p build/deb/tlbpath-$(TLBPATH_VERSION)
	cp --parents -t build/deb/tlbpath-$(TLBPATH_VERSION) $(DEB_FILES)
	cd build/deb/tlbpath-$(TLBPATH_VERSION) && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	@ls build/deb/*.deb

demo: $(DEPS)
	scripts/demo.sh

sim:
	bench/tlbsim/run.sh

sim-quick:
	QUICK=1 bench/tlbsim/run.sh

traces: $(DEPS)
	bench/traces/traces.sh
