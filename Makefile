# strata: how old is our code?
#
#   make          build ./strata
#   make deps     install the Debian packages that are missing
#   make test     deps, build, run every test (SAN=1: under ASan/UBSan,
#                 built by clang if installed, CC=gcc for gcc); make check
#                 is the same; make test-long adds the long soaks (LONG=1)
#   make demo     deps, build, publish a report of a sample repository
#   make bench    REPO=... REV=... [JOBS=N] [SAMPLE=K] [RUNS=R]: strata against
#                 per-file git blame; HISTORY=WHEN [OPTS=...]: the report with
#                 --history WHEN against --history none; AGAINST=BINARY
#                 [OPTS=...]: the report against another build's; SCALE=1:
#                 report --history releases on 1 and JOBS jobs against git
#                 log -p; SHAPE='--commits C ...': on a history of Linux's
#                 shape (tests/linux-shape.py), made once in build/shape/
#   make install  PREFIX=/usr/local DESTDIR= (the man page in
#                 $(PREFIX)/share/man/man1)
#   make fuzz     FUZZ_SECONDS=N [FUZZ=name]: build every libFuzzer target
#                 tests/fuzz/fuzz_<name>.c (or only FUZZ's) with clang in
#                 build/fuzz and run each for N seconds (docs/security.md)

VERSION  = 0.1.0
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
DATADIR  = $(PREFIX)/share/strata
LIBDIR   = $(PREFIX)/lib/strata
MANDIR   = $(PREFIX)/share/man

# The binary needs libgit2 and libdeflate; the charts and pages are
# strata-publish.so, loaded by `strata report` only (include/strata/publish.h).
CORE_PKGS = libgit2 libdeflate zlib
PUB_PKGS  = cairo pangocairo libdeflate libctemplate
PKGS      = $(CORE_PKGS) $(PUB_PKGS)
DEB_PKGS = libgit2-dev libdeflate-dev zlib1g-dev libcairo2-dev libpango1.0-dev libctemplate-dev \
	   fonts-dejavu-core pkg-config git g++ make time bc libxml2-utils \
	   chromium python3 groff-base clang

# SAN=1 builds with clang when it is installed (CC=gcc for gcc's), each
# compiler in its own directory: their ASan runtimes do not mix.
ifeq ($(SAN),1)
ifeq ($(origin CC),default)
CC      := $(if $(shell command -v clang 2>/dev/null),clang,cc)
endif
ifeq ($(origin CXX),default)
CXX     := $(if $(findstring clang,$(notdir $(CC))),$(subst \
	   clang,clang++,$(CC)),c++)
endif
BUILD    = build/san-$(notdir $(firstword $(CC)))
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
OPT      = -O1
# clang links its UBSan C++ runtime only into C++ programs, and the
# plug-in's vptr checks need it in the binary. The sources know ASan by
# UTIL_ASAN (util.h), which both compilers set.
ifneq ($(findstring clang,$(notdir $(CC))),)
SAN_LDFLAGS = -fsanitize-link-c++-runtime -lstdc++
endif
else
BUILD    = build/rel
SANFLAGS =
OPT      = -O2
endif

# What strata needs is kept apart from what a user gives: `make
# CFLAGS=-O3` replaces the optimisation and debugging flags only, and
# CPPFLAGS and LDFLAGS add to ours.
CC      ?= cc
CXX     ?= c++
CFLAGS  ?= $(OPT) -g
CXXFLAGS ?= $(OPT) -g
WARN     = -Wall -Wextra -Werror
STRATA_CPPFLAGS = -Iinclude -D_GNU_SOURCE -DSTRATA_VERSION='"$(VERSION)"' \
	   -DSTRATA_DATADIR='"$(DATADIR)"' -DSTRATA_LIBDIR='"$(LIBDIR)"'
override CPPFLAGS := $(STRATA_CPPFLAGS) $(CPPFLAGS)
override CFLAGS   := -std=c11 $(WARN) -pthread $(SANFLAGS) $(CFLAGS)
override CXXFLAGS := -std=c++17 $(WARN) -pthread $(SANFLAGS) $(CXXFLAGS)
# Header dependencies: each object's .d, written as it compiles.
DEPFLAGS = -MMD -MP

# pkg-config's flags, or make stops naming the missing packages (instead
# of compiling without them). Expanded only where a recipe needs them, so
# that `make deps` runs first; computed once (the eval).
pkg_missing = $(shell for p in $(1); do \
	pkg-config --exists $$p 2>/dev/null || printf '%s ' $$p; done)
pkg_flags = $(if $(shell command -v pkg-config 2>/dev/null),,$(error \
	pkg-config is missing: make deps installs it))$(if \
	$(call pkg_missing,$(2)),$(error missing pkg-config package(s): \
	$(call pkg_missing,$(2))(make deps installs them)),$(shell \
	pkg-config --$(1) $(2)))
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(call pkg_flags,cflags,$$(PKGS)))$(PKG_CFLAGS)
CORE_LIBS  = $(eval CORE_LIBS := $$(call pkg_flags,libs,$$(CORE_PKGS)))$(CORE_LIBS)
PUB_LIBS   = $(eval PUB_LIBS := $$(call pkg_flags,libs,$$(PUB_PKGS)))$(PUB_LIBS)

PUB_SRC  = $(sort $(wildcard src/chart*.c src/site*.c)) src/names.c src/template.cc
C_SRC    = $(filter-out $(PUB_SRC),$(sort $(wildcard src/*.c)))
CORE_OBJ = $(C_SRC:src/%.c=$(BUILD)/%.o)
PUB_OBJ  = $(patsubst src/%.cc,$(BUILD)/%.o,$(PUB_SRC:src/%.c=$(BUILD)/%.o))

.PHONY: all deps test check test-long demo bench install fuzz clean FORCE \
	print-core-src

all: strata

# ./strata and ./strata-publish.so are the build last asked for (plain or
# SAN=1); the binary looks for the object beside itself. Each is replaced
# by a rename, so that a run of the old one goes on undisturbed.
strata: $(BUILD)/strata $(BUILD)/strata-publish.so FORCE
	@cmp -s $< $@ || { cp $< $@.tmp && mv -f $@.tmp $@; }
	@cmp -s $(BUILD)/strata-publish.so strata-publish.so || \
		{ cp $(BUILD)/strata-publish.so strata-publish.so.tmp && \
		  mv -f strata-publish.so.tmp strata-publish.so; }

# strata-publish.so calls back into the binary, which exports to it only
# what src/publish.sym lists.
$(BUILD)/strata: $(CORE_OBJ) src/publish.sym
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,--dynamic-list=src/publish.sym -o $@ \
		$(CORE_OBJ) $(CORE_LIBS) -lm $(SAN_LDFLAGS)

$(BUILD)/strata-publish.so: $(PUB_OBJ)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -shared -o $@ $(PUB_OBJ) $(PUB_LIBS) -lm

$(PUB_OBJ): PIC = -fPIC

# (Makefile: its flags may have changed, and an object built before the
# .d files were has none.)
$(BUILD)/%.o: src/%.c Makefile | $(BUILD)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(PIC) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/%.o: src/%.cc Makefile | $(BUILD)
	$(CXX) $(CPPFLAGS) $(PKG_CFLAGS) $(CXXFLAGS) $(PIC) $(DEPFLAGS) -c -o $@ $<

$(BUILD):
	mkdir -p $@

# Install what is missing, and only that (needs root or sudo).
deps:
	@missing=; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
			grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
			$$missing >/dev/null || exit 1; \
	fi

# The unit tests compile with $CC and $CXX: the same compilers as the build.
TEST_ENV = STRATA=$(CURDIR)/strata CC='$(CC)' CXX='$(CXX)' \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The build before the tests on every core, unless -j was given.
BUILD_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell \
	nproc 2>/dev/null || echo 2))

test: deps
	$(MAKE) $(BUILD_JOBS) --no-print-directory strata
	@$(TEST_ENV) tests/run

check: test

# The long soaks too (more random rounds): not run by CI.
test-long: deps
	$(MAKE) $(BUILD_JOBS) --no-print-directory strata
	@$(TEST_ENV) LONG=1 tests/run

demo: deps
	$(MAKE) $(BUILD_JOBS) --no-print-directory strata
	@tests/demo-repo.sh build/demo-repo >/dev/null
	./strata report build/demo-repo --out output --force --quiet
	@echo "report: $(CURDIR)/output/index.html"

bench: deps
	$(MAKE) --no-print-directory strata
	@tests/bench.sh "$(REPO)" "$(REV)" "$(JOBS)"

# STRATA_BIN: install this binary, and the strata-publish.so beside it,
# instead (the tests install the build under test without rebuilding).
STRATA_BIN ?= strata
STRATA_PUB  = $(dir $(STRATA_BIN))strata-publish.so
install: $(STRATA_BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/templates \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(STRATA_BIN) $(DESTDIR)$(BINDIR)/strata
	install -m 644 $(STRATA_PUB) $(DESTDIR)$(LIBDIR)/strata-publish.so
	install -m 644 templates/* $(DESTDIR)$(DATADIR)/templates/
	install -m 644 docs/strata.1 $(DESTDIR)$(MANDIR)/man1/strata.1

# Fuzzing: each target tests/fuzz/fuzz_<name>.c defines
# LLVMFuzzerTestOneInput() and links against the core objects (src/*.c but
# main.c and the publishing sources), here built by clang with libFuzzer's
# coverage. A run reads the seeds of tests/fuzz/corpus/<name>/ and writes
# what it finds under build/fuzz only: new inputs in corpus/<name>/,
# crashes in crash/<name>/ (copy one to tests/fuzz/corpus/<name>/ to keep
# it: `make test` replays every corpus file, tests/t-fuzz-replay.sh).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR      = build/fuzz
FUZZ_ALL      = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_RUN      = $(if $(FUZZ),$(FUZZ),$(FUZZ_ALL))
FUZZ_FLAGS    = -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=undefined
FUZZ_OBJ      = $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(filter-out src/main.c,$(C_SRC)))

$(FUZZ_DIR)/obj/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=c11 $(WARN) -O1 -g -pthread \
		$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=c11 $(WARN) -O1 -g -pthread \
		$(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) \
		$(CORE_LIBS) -lm

# A target that includes strata/template.h also links the ctemplate
# bridge (src/template.cc) and ctemplate, with clang++.
FUZZ_CXX     ?= clang++
FUZZ_TPL      = $(patsubst tests/fuzz/fuzz_%.c,%,$(shell grep -l \
		'strata/template.h' tests/fuzz/fuzz_*.c 2>/dev/null))

$(FUZZ_DIR)/obj/template.o: src/template.cc Makefile
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(CPPFLAGS) -std=c++17 $(WARN) -O1 -g -pthread \
		$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c -o $@ $<

$(FUZZ_TPL:%=$(FUZZ_DIR)/fuzz_%): $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c \
		$(FUZZ_OBJ) $(FUZZ_DIR)/obj/template.o
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=c11 $(WARN) -O1 -g -pthread \
		$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@.o $<
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -pthread -o $@ $@.o \
		$(FUZZ_OBJ) $(FUZZ_DIR)/obj/template.o $(CORE_LIBS) \
		$(shell pkg-config --libs libctemplate 2>/dev/null) -lm

.SECONDARY: $(FUZZ_OBJ) $(FUZZ_DIR)/obj/template.o

# The sources of the core objects, as this Makefile finds them (every
# src/*.c but main.c and PUB_SRC): tests/t-fuzz-replay.sh builds those.
print-core-src:
	@echo $(filter-out src/main.c,$(C_SRC))

fuzz: deps $(FUZZ_RUN:%=$(FUZZ_DIR)/fuzz_%)
	@for t in $(FUZZ_RUN); do \
		[ -f tests/fuzz/fuzz_$$t.c ] || { echo "no fuzz target $$t"; exit 2; }; \
		mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crash/$$t \
			tests/fuzz/corpus/$$t; \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
		$(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 -rss_limit_mb=2048 \
			-artifact_prefix=$(FUZZ_DIR)/crash/$$t/ \
			$(FUZZ_DIR)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

clean:
	rm -rf build strata strata-publish.so

# make man: docs/strata.1's OPTIONS section from the option table of
# src/options.c (strata --help-man); tests/t-cli-man.sh fails when the
# page and the table disagree.
.PHONY: man
man: strata
	./strata --help-man >$(BUILD)/strata.1.options
	awk -v gen=$(BUILD)/strata.1.options \
		'/^\.SH OPTIONS/ { while ((getline l <gen) > 0) print l; skip = 1; next } \
		 /^\.SH / { skip = 0 } !skip' docs/strata.1 >$(BUILD)/strata.1.tmp
	mv -f $(BUILD)/strata.1.tmp docs/strata.1

# Header dependencies (DEPFLAGS): what each object included last time.
-include $(wildcard $(BUILD)/*.d $(FUZZ_DIR)/obj/*.d)
