# SPDX-License-Identifier: GPL-2.0
#
# kmemtrace: build the series on Debian's linux-source-6.12, boot it under
# QEMU and test it.  See README.md.
#
#   make run          build, boot, record a workload and print a report
#   make check        run every test layer; the last line sums them
#   make bench        what kmemtrace costs, in guest instructions (icount)
#   make bench-tool   only the host part of it: tools/kmemtrace's speed
#   make eventpath    one event of each probe single-stepped under gdb:
#                     instructions per function (EVENTPATH_SAMPLE=N samples)
#   make offpath      one bench pair of each operation stepped on kernels
#                     (a) and (b) with kmemtrace off: where off costs
#                     (EVENTPATH_OPS="vmalloc ..." steps only those)
#   make ftracetest   upstream's whole ftracetest suite on the test kernel,
#                     what fails rerun on the CONFIG_KMEMTRACE=n kernel
#                     (make check runs a smoke of it): about 6 minutes
#   make stress       the concurrency runs too long for make check: a KCSAN
#                     kernel, 8 vCPUs, repeated overrun and stress boots
#   make series       the series as git format-patch output, with a cover
#                     letter, in $(KMT_CACHE)/series/
#   make lint         checkpatch --strict and get_maintainer on the series,
#                     kernel-doc, sparse and W=1 against the unpatched tree
#                     (make checkpatch is the same)
#   make bisect-check build the test config after every patch of the series,
#                     and boot the tracepoint fixes alone with their KUnit suite
#   make offcheck     mm/ with CONFIG_KMEMTRACE=n against the unpatched tree
#   make clean        forget the builds (keeps the download)
#
# The kernel tree, builds and logs live in $(KMT_CACHE), outside the repo.

KMT_PIN		:= 6.12.117-1~deb12u1
KMT_CACHE	?= $(HOME)/.cache/kmemtrace
KMT_REPO	:= $(CURDIR)
KMT_TIMEOUT	?= 900
KMT_SMP		?= 2

export KMT_PIN KMT_CACHE KMT_REPO KMT_TIMEOUT KMT_SMP

BIN		:= tools/testing/selftests/kmemtrace/bin
CONFIGS		:= tools/testing/selftests/kmemtrace/configs
STAGE		= $(BIN)/stage.sh

.PHONY: all run check ftracetest stress bench bench-tool eventpath offpath checkpatch lint series bisect-check offcheck deps source prepare kernel tool initramfs \
	host-test clean distclean banner

all: run

banner:
	@echo "kmemtrace: cache $(KMT_CACHE) (make KMT_CACHE=... to move it)"

deps: banner
	@$(STAGE) deps $(BIN)/deps.sh

source: deps
	@$(STAGE) source $(BIN)/fetch.sh

prepare: source
	@$(STAGE) prepare $(BIN)/prepare.sh

kernel: prepare
	@$(STAGE) kernel $(BIN)/build.sh kmemtrace \
		$(CONFIGS)/base.config $(CONFIGS)/kmemtrace.config

# The tool takes tools/lib/symbol from the kernel source.
tool: source
	@$(STAGE) tool $(BIN)/build-tool.sh

initramfs: kernel tool
	@$(STAGE) initramfs $(BIN)/mkinitramfs.sh

run: initramfs
	@$(STAGE) boot $(BIN)/run.sh demo "kunit.enable=0"

host-test: tool
	@$(STAGE) host-test $(BIN)/host-test.sh

check: deps
	@KMT_MAKE="$(MAKE)" $(BIN)/check.sh

ftracetest: deps
	@KMT_MAKE="$(MAKE)" $(BIN)/ftracetest.sh

# KMT_STRESS_RUNS=N: how many times the overrun and stress boots run.
stress: deps
	@KMT_MAKE="$(MAKE)" $(BIN)/stress.sh

# The benchmark kernels, not the test kernel, boot the test initramfs.
bench: prepare tool
	@$(STAGE) initramfs $(BIN)/mkinitramfs.sh
	@$(BIN)/bench.sh

# The tool's speed on the host alone, without the kernels: a minute.
bench-tool: tool
	@$(BIN)/bench.sh tool

# One recorded event per probe, single-stepped function by function under
# gdb (bench kernel (b); EVENTPATH_SAMPLE=N: sampling; EVENTPATH_SAMPLE=pairs:
# whole bench pairs while recording, pairs-N: while sampling one allocation
# per N bytes; EVENTPATH_KERNEL=bench-c: the kernel
# of make bench's sampling columns, with the allocators' hooks, where
# EVENTPATH_SAMPLE=prof steps the pairs with allocation profiling
# switched on and nothing recording): a few minutes.
EVENTPATH_KERNEL ?= bench-b
eventpath: prepare tool
	@$(STAGE) initramfs $(BIN)/mkinitramfs.sh
	@$(BIN)/eventpath.sh $(EVENTPATH_KERNEL) $(EVENTPATH_SAMPLE)

# The bench's pairs single-stepped on kernels (a) and (b), kmemtrace off:
# the functions whose instructions differ.  A few minutes.
offpath: prepare tool
	@$(STAGE) initramfs $(BIN)/mkinitramfs.sh
	@$(BIN)/offpath.sh

series: prepare
	@$(STAGE) series $(BIN)/series.sh

lint: prepare
	@$(BIN)/checkpatch.sh

checkpatch: lint

offcheck: prepare
	@$(STAGE) offcheck $(BIN)/offcheck.sh

bisect-check: prepare tool
	@$(STAGE) bisect-check $(BIN)/bisect-check.sh \
		$(CONFIGS)/base.config $(CONFIGS)/kmemtrace.config

clean:
	rm -rf $(KMT_CACHE)/build $(KMT_CACHE)/out $(KMT_CACHE)/stage

distclean:
	rm -rf $(KMT_CACHE)
