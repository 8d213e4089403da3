// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace record - record allocations and frees into a directory
 *
 * Enables kmemtrace, runs a command (or waits for a signal or a duration),
 * disables kmemtrace and copies the per-CPU relay streams, abi_version,
 * stats, caches and kallsyms into the output directory, with the events
 * dropped while recording and the loss counters at the start.  The
 * streams are also drained while tracing runs so that the relay buffers do
 * not overflow.  A header describing the recording is written first, and
 * the names of the tasks seen (comms) last.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comms.h"
#include "ctf.h"
#include "drain.h"
#include "gfp.h"
#include "header.h"
#include "kmemtrace.h"
#include "periodic.h"
#include "trace.h"
#include "utils.h"

#define KMT_DEBUGFS		"/sys/kernel/debug/kmemtrace"
#define KMT_KALLSYMS		"/proc/kallsyms"
#define KMT_MODULES		"/proc/modules"
#define KMT_NOTES		"/sys/kernel/notes"
#define KMT_TRACEFS		"/sys/kernel/tracing"
#define KMT_KMALLOC_FORMAT	"events/kmem/kmalloc/format"
#define KMT_PROC		"/proc"
#define KMT_POLL_MS		100
/* How often the names of all tasks are read again. */
#define KMT_COMMS_MS		1000
/* How often the progress line is updated. */
#define KMT_PROGRESS_MS		1000
/* Longest -d, about 136 years: SECONDS * 1000 cannot overflow the deadline. */
#define KMT_MAX_DURATION	UINT32_MAX
/* The kernel's largest sample_period. */
#define KMT_MAX_SAMPLE		1073741824ULL
/* Whole events per read() of kmemtrace.empty's discarding. */
#define KMT_READ_SIZE		(819 * KMEMTRACE_EVENT_SIZE)
/* Pids taken from a drain at a time. */
#define KMT_PIDS		256

struct record_params {
	const char *outdir;
	const char *debugfs;
	const char *kallsyms;
	const char *modules;
	bool has_modules;
	const char *notes;
	const char *tracefs;
	const char *proc;
	uint64_t duration;
	bool has_duration;
	uint64_t pprof_every;
	bool pprof_only;
	uint64_t sample;
	bool has_sample;
	bool empty;
	bool quiet;
	bool read;
	char **cmd;
};

/*
 * A debugfs cpuN stream (@in, opened from @in_path), the file it is
 * copied to (@out, @out_path), and the drain that copies it (drain.h).
 * @bytes is the drain's count, as last taken.
 */
struct cpu_stream {
	int cpu;
	int in;
	int out;
	char *in_path;
	char *out_path;
	struct kmt_drain *drain;
	uint64_t bytes;
	uint64_t shown;
};

/*
 * The progress line shown on a terminal: @shown_ms when it was last
 * updated, @start_ms when recording started, @dropped the kernel's count
 * of dropped events then.
 */
struct progress {
	bool on;
	bool shown;
	uint64_t start_ms;
	uint64_t shown_ms;
	bool has_dropped;
	uint64_t dropped;
};

/* The kallsyms lines of one module, as last read. */
struct mod_syms {
	char *name;
	char *lines;
	size_t len;
	bool seen;		/* in the last kallsyms read */
};

/*
 * The symbols of the modules seen while recording: kallsyms is read again
 * when the modules file changes, so that a module unloaded before the end
 * keeps its symbols in DIR/kallsyms.
 */
struct modules {
	bool on;
	char *last;		/* the contents of the modules file */
	size_t last_len;
	struct mod_syms *mods;
	size_t nr;
};

/*
 * The kernel's loss counters at the start of the recording, read with
 * kmemtrace off (see counters_start()): @exact when they were, @dropped
 * the "dropped" count then, @stats the "stats" file then (NULL for a
 * kernel without it), of @stats_len bytes.
 */
struct start_counters {
	bool exact;
	uint64_t dropped;
	char *stats;
	size_t stats_len;
};

struct recorder {
	const struct record_params *p;
	struct start_counters start;
	struct modules modules;
	struct cpu_stream *cpus;
	size_t nr;
	bool enabled;
	bool started;		/* kmemtrace was enabled: there is a recording */
	bool drain_failed;
	bool stop;
	pid_t child;
	bool has_nofile;
	struct rlimit nofile;	/* the limit of open files record had */
	int sigfd;
	int pidfd;
	sigset_t sigs;
	struct kmt_comm_rec *comms;	/* NULL with --pprof-only */
	bool rescan_comms;		/* read every task's name each second */
	struct kmt_periodic_params periodic_params;
	struct kmt_periodic *periodic;
	bool periodic_failed;
	struct progress progress;
	char buf[KMT_READ_SIZE];
};

static void record_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace record -o DIR [-e] [-q] [-d SECONDS] [-D DEBUGFS_DIR]\n"
		"                          [-K KALLSYMS] [--modules FILE] [--notes FILE]\n"
		"                          [--tracefs DIR] [--proc DIR] [--read]\n"
		"                          [--pprof-every SECONDS] [--pprof-only] [-s BYTES]\n"
		"                          [-- CMD [ARGS...]]\n"
		"\n"
		"  Write DIR/header (the traced kernel and the recording), enable\n"
		"  kmemtrace, run CMD (or wait for SIGINT, SIGTERM, SIGHUP, SIGQUIT or\n"
		"  SIGPIPE, or SECONDS), disable kmemtrace and write the cpuN streams,\n"
		"  abi_version, dropped, stats, caches, kallsyms, comms (the names of the\n"
		"  tasks) and, when the kernel has them, tags (the codetags of the\n"
		"  events), stacks (their stack traces) and kmalloc_format (the kmalloc\n"
		"  tracepoint's format, for the kernel's gfp flag names) to DIR, and ctf/\n"
		"  (CTF metadata and links to the streams: babeltrace2 DIR/ctf reads\n"
		"  them, see kmemtrace ctf).  Needs root.  dropped counts the events\n"
		"  dropped while recording; the kernel's counters at the start are kept\n"
		"  as dropped.start and stats.start, for check to hold each CPU to its\n"
		"  drops.  A stream that cannot be written stops the recording; the\n"
		"  events read but not written are counted in DIR/unwritten, and record\n"
		"  exits 1.\n"
		"\n"
		"     -o/--output DIR         directory to write, created if needed; the\n"
		"                             files of an earlier recording there are\n"
		"                             removed first\n"
		"     -e/--empty              discard events left in the buffers by an\n"
		"                             earlier session before enabling\n"
		"     -d/--duration SECONDS   stop after SECONDS, at most 4294967295\n"
		"                             (not with CMD)\n"
		"     -D/--debugfs DIR        kmemtrace debugfs directory\n"
		"                             (default " KMT_DEBUGFS ")\n"
		"     -K/--kallsyms FILE      copy FILE instead of " KMT_KALLSYMS "; it is read\n"
		"                             again when the modules file changes, and\n"
		"                             the symbols of modules unloaded meanwhile\n"
		"                             are kept\n"
		"     --modules FILE          watch FILE instead of " KMT_MODULES "\n"
		"     --notes FILE            read the kernel's build id from FILE\n"
		"                             instead of " KMT_NOTES "\n"
		"     --tracefs DIR           copy the kmalloc format from\n"
		"                             DIR/" KMT_KMALLOC_FORMAT "\n"
		"                             (default: the tracing directory beside the\n"
		"                             debugfs one, else " KMT_TRACEFS ")\n"
		"     --proc DIR              read the names of tasks from DIR instead\n"
		"                             of " KMT_PROC "\n"
		"     --read                  copy the streams with read(), even where\n"
		"                             the kernel lets record map its buffers\n"
		"     --pprof-every SECONDS   while recording, write a pprof heap profile\n"
		"                             every SECONDS (1 to 4294967295) to\n"
		"                             DIR/pprof/heap-HOST-YYYYmmddTHHMMSS.mmmZ.pb.gz\n"
		"                             (UTC, the interval's end):\n"
		"                             alloc_* of the interval, inuse_* at its\n"
		"                             end, scaled in sampling mode\n"
		"                             (kmemtrace.sample); the profiles of an\n"
		"                             earlier recording there are removed first\n"
		"     --pprof-only            with --pprof-every, keep only the profiles:\n"
		"                             the space of the events is given back as\n"
		"                             the profiles are made from them, the\n"
		"                             streams are removed at the end, and no\n"
		"                             comms are kept (to leave sampling on for\n"
		"                             days)\n"
		"     -s/--sample BYTES       sample: record one allocation per BYTES\n"
		"                             allocated on average (1 to 1073741824;\n"
		"                             524288 is Go's default), with its stack,\n"
		"                             and the frees of those only; writes the\n"
		"                             kernel's sample_period for the recording\n"
		"                             and sets it back after, and copies\n"
		"                             sample_stats\n"
		"     -q/--quiet              no progress line (shown every second when\n"
		"                             stderr is a terminal: events/s per CPU,\n"
		"                             bytes written, events dropped so far)\n"
		"     -h/--help               print this help\n");
	exit(status);
}

static void record_check_args(struct record_params *p, int argc, char **argv)
{
	if (optind < argc)
		p->cmd = argv + optind;
	if (!p->outdir) {
		kmt_err("record: -o DIR is required");
		record_usage(KMT_EXIT_USAGE);
	}
	if (p->cmd && p->has_duration) {
		kmt_err("record: -d and CMD cannot be used together");
		record_usage(KMT_EXIT_USAGE);
	}
	if (p->pprof_only && !p->pprof_every) {
		kmt_err("record: --pprof-only needs --pprof-every");
		record_usage(KMT_EXIT_USAGE);
	}
}

static void record_parse_args(int argc, char **argv, struct record_params *p)
{
	static const struct option long_options[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "empty",	no_argument,		NULL, 'e' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "debugfs",	required_argument,	NULL, 'D' },
		{ "kallsyms",	required_argument,	NULL, 'K' },
		{ "notes",	required_argument,	NULL, 'N' },
		{ "modules",	required_argument,	NULL, 'M' },
		{ "tracefs",	required_argument,	NULL, 'T' },
		{ "proc",	required_argument,	NULL, 'p' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "read",	no_argument,		NULL, 'R' },
		{ "pprof-every", required_argument,	NULL, 'P' },
		{ "pprof-only",	no_argument,		NULL, 'O' },
		{ "sample",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	p->debugfs = KMT_DEBUGFS;
	p->kallsyms = KMT_KALLSYMS;
	p->modules = KMT_MODULES;
	p->notes = KMT_NOTES;
	p->proc = KMT_PROC;
	/* '+': stop at CMD, its options are its own. */
	while ((c = getopt_long(argc, argv, "+o:ed:D:K:s:qh", long_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			p->outdir = optarg;
			break;
		case 'e':
			p->empty = true;
			break;
		case 'd':
			if (parse_u64(optarg, &p->duration)) {
				kmt_err("record: bad number of seconds for -d: '%s'", optarg);
				record_usage(KMT_EXIT_USAGE);
			}
			if (p->duration > KMT_MAX_DURATION) {
				kmt_err("record: -d %s: more than %llu seconds", optarg,
					(unsigned long long)KMT_MAX_DURATION);
				record_usage(KMT_EXIT_USAGE);
			}
			p->has_duration = true;
			break;
		case 'D':
			p->debugfs = optarg;
			break;
		case 'K':
			p->kallsyms = optarg;
			break;
		case 'N':
			p->notes = optarg;
			break;
		case 'M':
			p->modules = optarg;
			p->has_modules = true;
			break;
		case 'T':
			p->tracefs = optarg;
			break;
		case 'p':
			p->proc = optarg;
			break;
		case 'q':
			p->quiet = true;
			break;
		case 'R':
			p->read = true;
			break;
		case 'P':
			if (parse_u64(optarg, &p->pprof_every) || !p->pprof_every ||
			    p->pprof_every > KMT_MAX_DURATION) {
				kmt_err("record: --pprof-every takes 1 to %llu seconds, not '%s'",
					(unsigned long long)KMT_MAX_DURATION, optarg);
				record_usage(KMT_EXIT_USAGE);
			}
			break;
		case 'O':
			p->pprof_only = true;
			break;
		case 's':
			if (parse_u64(optarg, &p->sample) || !p->sample ||
			    p->sample > KMT_MAX_SAMPLE) {
				kmt_err("record: --sample takes 1 to %llu bytes, not '%s'",
					(unsigned long long)KMT_MAX_SAMPLE, optarg);
				record_usage(KMT_EXIT_USAGE);
			}
			p->has_sample = true;
			break;
		case 'h':
			record_usage(0);
			break;
		default:
			record_usage(KMT_EXIT_USAGE);
		}
	}
	record_check_args(p, argc, argv);
}

static int check_debugfs(const char *dir)
{
	char *path;
	uint64_t abi;
	int ret;

	ret = is_dir(dir);
	if (ret <= 0) {
		kmt_err("%s: %s (is debugfs mounted and CONFIG_KMEMTRACE on?)", dir,
			strerror(ret ? -ret : ENOTDIR));
		return -1;
	}
	path = path_join(dir, "abi_version");
	ret = read_u64_file(path, &abi);
	if (ret)
		kmt_err("%s: %s", path, ret == -EINVAL ? "not a number" : strerror(-ret));
	else if (abi != KMEMTRACE_ABI_VERSION)
		kmt_err("%s: ABI version %llu, this kmemtrace records version %d only",
			path, (unsigned long long)abi, KMEMTRACE_ABI_VERSION);
	free(path);
	return ret || abi != KMEMTRACE_ABI_VERSION ? -1 : 0;
}

static int make_outdir(const char *dir)
{
	if (!mkdir(dir, 0755) || (errno == EEXIST && is_dir(dir) == 1))
		return 0;
	kmt_err("%s: %s", dir, errno == EEXIST ? strerror(ENOTDIR) : strerror(errno));
	return -1;
}

/* The files record writes into DIR besides the cpuN streams. */
static const char * const record_files[] = {
	"header", "abi_version", "dropped", "dropped.start", "stats",
	"stats.start", "caches", "kallsyms", "comms", "tags", "stacks",
	"sample_stats", "unwritten", KMT_GFP_FORMAT_FILE,
};

static bool is_record_file(const char *name)
{
	size_t i;

	if (kmt_cpu_from_name(name) >= 0)
		return true;
	for (i = 0; i < ARRAY_SIZE(record_files); i++)
		if (!strcmp(name, record_files[i]))
			return true;
	return false;
}

/* Whether @a and @b exist and are the same file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * What an earlier recording left in DIR would mix with this one: a cpuN
 * file of a CPU this machine lacks, or a side file this kernel does not
 * have, would be read as part of the new trace.  Remove every file record
 * writes, and only those; fail if one cannot be removed.
 */
static int clean_outdir(const struct record_params *p)
{
	char *kallsyms = path_join(p->outdir, "kallsyms");
	size_t removed = 0;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (same_file(p->outdir, p->debugfs)) {
		kmt_err("%s: is the debugfs directory, record to another one", p->outdir);
		ret = -1;
	} else if (same_file(kallsyms, p->kallsyms)) {
		kmt_err("%s: is %s, which record replaces: copy it elsewhere first",
			p->kallsyms, kallsyms);
		ret = -1;
	}
	free(kallsyms);
	if (ret)
		return ret;
	d = opendir(p->outdir);
	if (!d) {
		kmt_err("%s: %s", p->outdir, strerror(errno));
		return -1;
	}
	while (!ret && (de = readdir(d))) {
		if (!is_record_file(de->d_name))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0)) {
			kmt_err("%s/%s: cannot remove what an earlier recording left: %s",
				p->outdir, de->d_name, strerror(errno));
			ret = -1;
		} else {
			removed++;
		}
	}
	closedir(d);
	if (!ret && removed)
		kmt_err("%s: removed %zu files of an earlier recording", p->outdir,
			removed);
	return ret;
}

/*
 * record holds 3 files per CPU (its cpuN file, DIR/cpuN and the drain's
 * eventfd), 4 with --pprof-every: raise the soft limit of open files to
 * the hard one, as perf does, for machines of hundreds of CPUs.  CMD
 * gets the limit record had.  Failing, record fails at the file it
 * cannot open, and says which.
 */
static void raise_nofile(struct recorder *r)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &r->nofile))
		return;
	r->has_nofile = true;
	rl = r->nofile;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_cur != r->nofile.rlim_cur)
		setrlimit(RLIMIT_NOFILE, &rl);
}

/* Open debugfs cpuN and DIR/cpuN. */
static int open_stream(struct recorder *r, int cpu, const char *name)
{
	struct cpu_stream *cs;
	int ret = 0;

	r->cpus = xrealloc(r->cpus, (r->nr + 1) * sizeof(*r->cpus));
	cs = &r->cpus[r->nr];
	cs->in_path = path_join(r->p->debugfs, name);
	cs->out_path = path_join(r->p->outdir, name);
	cs->cpu = cpu;
	cs->drain = NULL;
	cs->bytes = 0;
	cs->shown = 0;
	cs->in = open(cs->in_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cs->out = -1;
	if (cs->in < 0) {
		kmt_err("%s: %s", cs->in_path, strerror(errno));
		ret = -1;
	} else {
		cs->out = open(cs->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (cs->out < 0) {
			kmt_err("%s: %s", cs->out_path, strerror(errno));
			ret = -1;
		}
	}
	r->nr++;
	return ret;
}

static int stream_cmp(const void *a, const void *b)
{
	const struct cpu_stream *x = a, *y = b;

	return x->cpu - y->cpu;
}

/*
 * Buffers are allocated on first use: ask for them, so that the cpuN
 * files exist before recording starts.  Older kernels have no buffers
 * file and always have the cpuN files.
 */
static int allocate_buffers(struct recorder *r)
{
	char *path = path_join(r->p->debugfs, "buffers");
	int ret = 0;

	if (!access(path, F_OK)) {
		ret = write_string(path, "allocate\n");
		if (ret)
			kmt_err("%s: %s", path, strerror(-ret));
	}
	free(path);
	return ret;
}

static bool stream_open(const struct recorder *r, int cpu)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->cpus[i].cpu == cpu)
			return true;
	return false;
}

/*
 * Open the cpuN files not open yet.  A CPU that comes online for the
 * first time since the buffers were allocated gets its file then, maybe
 * in the middle of a recording.
 */
static int open_new_streams(struct recorder *r)
{
	struct dirent *de;
	int cpu, ret = 0;
	DIR *d;

	d = opendir(r->p->debugfs);
	if (!d) {
		kmt_err("%s: %s", r->p->debugfs, strerror(errno));
		return -1;
	}
	while (!ret && (de = readdir(d))) {
		cpu = kmt_cpu_from_name(de->d_name);
		if (cpu >= 0 && !stream_open(r, cpu))
			ret = open_stream(r, cpu, de->d_name);
	}
	closedir(d);
	return ret;
}

static int open_streams(struct recorder *r)
{
	int ret;

	if (allocate_buffers(r))
		return -1;
	ret = open_new_streams(r);
	if (!ret && !r->nr) {
		kmt_err("%s: no cpuN files", r->p->debugfs);
		ret = -1;
	}
	qsort(r->cpus, r->nr, sizeof(*r->cpus), stream_cmp);
	return ret;
}

/* Read a stream until it is empty, discarding what it had (--empty). */
static int discard_stream(struct recorder *r, struct cpu_stream *cs)
{
	ssize_t n;

	for (;;) {
		n = read(cs->in, r->buf, sizeof(r->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (!n || (n < 0 && errno == EAGAIN))
			return 0;
		if (n < 0) {
			kmt_err("%s: %s", cs->in_path, strerror(errno));
			return -1;
		}
	}
}

static int discard_streams(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (discard_stream(r, &r->cpus[i]))
			return -1;
	return 0;
}

/* Start copying the streams that have no drain yet. */
static int start_drains(struct recorder *r)
{
	struct cpu_stream *cs;
	size_t i;

	for (i = 0; i < r->nr; i++) {
		cs = &r->cpus[i];
		if (cs->drain)
			continue;
		cs->drain = kmt_drain_start(cs->in, cs->out, cs->cpu, cs->in_path,
					    cs->out_path, r->comms ? r->pidfd : -1,
					    !r->p->read);
		if (!cs->drain)
			return -1;
	}
	return 0;
}

/* Read the names of the tasks the drains saw for the first time. */
static void take_pids(struct recorder *r)
{
	uint32_t pids[KMT_PIDS];
	uint64_t count;
	size_t i, j, n;

	if (!r->comms)
		return;
	if (read(r->pidfd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		kmt_err("eventfd: %s", strerror(errno));
	for (i = 0; i < r->nr; i++) {
		if (!r->cpus[i].drain)
			continue;
		do {
			n = kmt_drain_pids(r->cpus[i].drain, pids, KMT_PIDS);
			for (j = 0; j < n; j++)
				kmt_comm_rec_pid(r->comms, pids[j]);
		} while (n == KMT_PIDS);
	}
}

/* Take the drains' byte counts. */
static void take_bytes(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->cpus[i].drain)
			r->cpus[i].bytes = kmt_drain_bytes(r->cpus[i].drain);
}

/*
 * Whether a drain failed (it said why): recording stops, rather than go
 * on with a CPU whose events are not written.
 */
static bool drains_failed(const struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->cpus[i].drain && kmt_drain_failed(r->cpus[i].drain))
			return true;
	return false;
}

/*
 * With kmemtrace disabled: copy what is left in every stream, and wait
 * for the drains to end.
 */
static int finish_drains(struct recorder *r)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->cpus[i].drain && kmt_drain_finish(r->cpus[i].drain))
			ret = -1;
	take_pids(r);
	take_bytes(r);
	if (ret)
		r->drain_failed = true;
	return ret;
}

static int set_enabled(struct recorder *r, bool on)
{
	char *path = path_join(r->p->debugfs, "enabled");
	int ret;

	ret = write_string(path, on ? "1\n" : "0\n");
	if (ret)
		kmt_err("%s: %s", path, strerror(-ret));
	else
		r->enabled = on;
	if (!ret && on)
		r->started = true;
	free(path);
	return ret;
}

/*
 * The signals that stop a recording: any that would kill record by
 * default and that a user or a session sends (Ctrl-C, Ctrl-\, kill, a
 * closed terminal, a reader of stderr gone).  Killed by one, record
 * would leave kmemtrace enabled, sample_period set and the recording
 * without its counters.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

static bool is_stop_signal(int sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		if (stop_signals[i] == sig)
			return true;
	return false;
}

/*
 * The stop signals and SIGCHLD are read from a signalfd polled with the
 * streams.  SIGXFSZ is blocked too, and never read: past a file size
 * limit, a write then fails with EFBIG, which record reports, rather
 * than kill it.
 */
static int setup_signals(struct recorder *r)
{
	size_t i;

	sigemptyset(&r->sigs);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&r->sigs, stop_signals[i]);
	sigaddset(&r->sigs, SIGCHLD);
	sigaddset(&r->sigs, SIGXFSZ);
	if (sigprocmask(SIG_BLOCK, &r->sigs, NULL)) {
		kmt_err("sigprocmask: %s", strerror(errno));
		return -1;
	}
	r->sigfd = signalfd(-1, &r->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sigfd < 0) {
		kmt_err("signalfd: %s", strerror(errno));
		sigprocmask(SIG_UNBLOCK, &r->sigs, NULL);
		return -1;
	}
	return 0;
}

/*
 * Once every file is written.  The signals stay blocked until record
 * exits: one that came while it finished is dropped, rather than kill it
 * then.
 */
static void close_signals(struct recorder *r)
{
	if (r->sigfd >= 0)
		close(r->sigfd);
	r->sigfd = -1;
}

/* A stop signal ends the recording, or is passed on to CMD. */
static void read_signals(struct recorder *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (!is_stop_signal(si.ssi_signo))
			continue;
		if (r->child)
			kill(r->child, si.ssi_signo);
		else
			r->stop = true;
	}
}

/*
 * Run CMD.  A close-on-exec pipe tells whether execvp() worked: it reads
 * EOF on success and the errno of the failure otherwise.
 */
static int start_child(struct recorder *r)
{
	int pipefd[2], err = 0;

	if (pipe2(pipefd, O_CLOEXEC)) {
		kmt_err("pipe: %s", strerror(errno));
		return -1;
	}
	r->child = fork();
	if (!r->child) {
		close(pipefd[0]);
		sigprocmask(SIG_UNBLOCK, &r->sigs, NULL);
		if (r->has_nofile)
			setrlimit(RLIMIT_NOFILE, &r->nofile);
		execvp(r->p->cmd[0], r->p->cmd);
		err = errno;
		write_all(pipefd[1], &err, sizeof(err));
		_exit(127);
	}
	close(pipefd[1]);
	if (r->child < 0)
		err = errno;
	else if (read(pipefd[0], &err, sizeof(err)) <= 0)
		err = 0;
	close(pipefd[0]);
	if (!err)
		return 0;
	kmt_err("%s: %s", r->child < 0 ? "fork" : r->p->cmd[0], strerror(err));
	if (r->child > 0)
		waitpid(r->child, NULL, 0);
	r->child = 0;
	return -1;
}

static uint64_t now_ms(void)
{
	return kmt_now_ns() / 1000000;
}

/* Reap the child; return true once it has exited. */
static bool child_done(struct recorder *r)
{
	int status;

	if (waitpid(r->child, &status, WNOHANG) != r->child)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		kmt_err("%s exited with status %d", r->p->cmd[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		kmt_err("%s killed by signal %d", r->p->cmd[0], WTERMSIG(status));
	r->child = 0;
	return true;
}

/* Decide whether recording is over; return the poll() timeout if not. */
static int record_timeout(struct recorder *r, uint64_t deadline)
{
	uint64_t now;

	read_signals(r);
	if (drains_failed(r))
		return -1;
	if (r->child)
		return child_done(r) ? -1 : KMT_POLL_MS;
	if (r->stop)
		return -1;
	if (!r->p->has_duration)
		return KMT_POLL_MS;
	now = now_ms();
	if (now >= deadline)
		return -1;
	return deadline - now < KMT_POLL_MS ? deadline - now : KMT_POLL_MS;
}

/* ------------------------------------------------------------- modules */

/* The module of a kallsyms line "ADDR TYPE NAME\t[MODULE]", or NULL. */
static const char *line_module(const char *line, size_t len, size_t *mlen)
{
	const char *open;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len < 3 || line[len - 1] != ']')
		return NULL;
	open = memrchr(line, '[', len);
	if (!open || open == line || (open[-1] != '\t' && open[-1] != ' ') ||
	    open + 2 > line + len - 1)
		return NULL;
	*mlen = line + len - 1 - (open + 1);
	return open + 1;
}

static struct mod_syms *mod_find(struct modules *m, const char *name,
				 size_t len)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (strlen(m->mods[i].name) == len &&
		    !memcmp(m->mods[i].name, name, len))
			return &m->mods[i];
	return NULL;
}

/*
 * Keep the symbols of every module of kallsyms text @buf: those of a
 * module replace what an earlier read had of it.  The modules @buf has
 * are marked seen, the others not.
 */
static void modules_keep(struct modules *m, const char *buf)
{
	struct mod_syms *ms, *fresh = NULL;
	const char *line, *next, *name;
	size_t i, len, mlen, nr = 0;

	for (line = buf; *line; line = next) {
		next = line + strcspn(line, "\n");
		len = next - line;
		next += *next == '\n';
		name = line_module(line, len, &mlen);
		if (!name)
			continue;
		for (i = 0; i < nr; i++)
			if (strlen(fresh[i].name) == mlen &&
			    !memcmp(fresh[i].name, name, mlen))
				break;
		if (i == nr) {
			fresh = xrealloc(fresh, (nr + 1) * sizeof(*fresh));
			fresh[nr].name = xstrndup(name, mlen);
			fresh[nr].lines = NULL;
			fresh[nr].seen = true;
			fresh[nr++].len = 0;
		}
		ms = &fresh[i];
		ms->lines = xrealloc(ms->lines, ms->len + len + 1);
		memcpy(ms->lines + ms->len, line, len);
		ms->lines[ms->len + len] = '\n';
		ms->len += len + 1;
	}
	for (i = 0; i < m->nr; i++)
		m->mods[i].seen = false;
	for (i = 0; i < nr; i++) {
		ms = mod_find(m, fresh[i].name, strlen(fresh[i].name));
		if (!ms) {
			m->mods = xrealloc(m->mods, (m->nr + 1) * sizeof(*m->mods));
			ms = &m->mods[m->nr++];
		} else {
			free(ms->name);
			free(ms->lines);
		}
		*ms = fresh[i];
	}
	free(fresh);
}

/* Read kallsyms again and keep the symbols of its modules. */
static void modules_scan(struct recorder *r)
{
	size_t len;
	char *buf;

	if (read_file(r->p->kallsyms, &buf, &len))
		return;
	modules_keep(&r->modules, buf);
	free(buf);
}

/*
 * Start watching the modules file: a kernel without modules has none,
 * which is only worth a word when --modules named it.
 */
static void modules_start(struct recorder *r)
{
	struct modules *m = &r->modules;
	int ret;

	ret = read_file(r->p->modules, &m->last, &m->last_len);
	if (ret) {
		if (r->p->has_modules)
			kmt_err("warning: %s: %s, the symbols of modules unloaded while recording will be missing",
				r->p->modules, strerror(-ret));
		return;
	}
	m->on = true;
	modules_scan(r);
}

/* When the modules file changed, read kallsyms again. */
static void modules_poll(struct recorder *r)
{
	struct modules *m = &r->modules;
	size_t len;
	char *buf;

	if (!m->on || read_file(r->p->modules, &buf, &len))
		return;
	if (len == m->last_len && !memcmp(buf, m->last, len)) {
		free(buf);
		return;
	}
	free(m->last);
	m->last = buf;
	m->last_len = len;
	modules_scan(r);
}

/*
 * Write DIR/kallsyms: kallsyms as it is now, then the symbols of the
 * modules seen while recording that it lacks (unloaded since).
 */
static int write_kallsyms(struct recorder *r)
{
	char *dst = path_join(r->p->outdir, "kallsyms");
	struct modules *m = &r->modules;
	size_t len, i;
	char *buf;
	int ret, fd;

	ret = read_file(r->p->kallsyms, &buf, &len);
	if (ret) {
		kmt_err("%s: %s", r->p->kallsyms, strerror(-ret));
		free(dst);
		return ret;
	}
	if (m->on)
		modules_keep(m, buf);
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = write_all(fd, buf, len);
		if (!ret && len && buf[len - 1] != '\n')
			ret = write_all(fd, "\n", 1);
		for (i = 0; !ret && m->on && i < m->nr; i++)
			if (!m->mods[i].seen)
				ret = write_all(fd, m->mods[i].lines, m->mods[i].len);
		if (close(fd) && !ret)
			ret = -errno;
	}
	if (ret) {
		kmt_err("%s: %s", dst, strerror(-ret));
		unlink(dst);
	}
	free(buf);
	free(dst);
	return ret;
}

static void modules_free(struct modules *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->mods[i].name);
		free(m->mods[i].lines);
	}
	free(m->mods);
	free(m->last);
}

/* The progress line on the terminal, to erase before a message. */
static struct progress *progress_line;

static void progress_erase(void)
{
	if (!progress_line || !progress_line->shown)
		return;
	fputs("\r\033[K", stderr);
	progress_line->shown = false;
}

static void progress_start(struct recorder *r)
{
	struct progress *pr = &r->progress;
	char *path;

	pr->on = !r->p->quiet && isatty(STDERR_FILENO);
	if (!pr->on)
		return;
	progress_line = pr;
	kmt_err_hook(progress_erase);
	pr->start_ms = now_ms();
	pr->shown_ms = pr->start_ms;
	path = path_join(r->p->debugfs, "dropped");
	pr->has_dropped = !read_u64_file(path, &pr->dropped);
	free(path);
}

/* Write @v per second as "950", "12.3k", "4.5M". */
static void format_rate(char *buf, size_t len, double v)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 999.95e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.1fM", v / 1e6);
}

static void format_size(char *buf, size_t len, uint64_t v)
{
	if (v < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else if (v < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", v / 1024.0);
	else if (v < 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", v / (1024.0 * 1024));
	else
		snprintf(buf, len, "%.1f GiB", v / (1024.0 * 1024 * 1024));
}

static size_t terminal_width(void)
{
	struct winsize ws;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/*
 * Once a second, overwrite the progress line: time recording, events per
 * second, bytes written, events dropped since the start, and the events
 * per second of each CPU for as many CPUs as the terminal width allows.
 */
static void progress_show(struct recorder *r)
{
	struct progress *pr = &r->progress;
	size_t i, len, width = terminal_width() - 1;
	char line[1024], rate[32], size[32], item[64], dropped[32];
	uint64_t now = now_ms(), bytes = 0, events = 0, lost;
	double secs;
	char *path;

	if (!pr->on || now - pr->shown_ms < KMT_PROGRESS_MS)
		return;
	take_bytes(r);
	secs = (now - pr->shown_ms) / 1000.0;
	for (i = 0; i < r->nr; i++) {
		bytes += r->cpus[i].bytes;
		events += (r->cpus[i].bytes - r->cpus[i].shown) / KMEMTRACE_EVENT_SIZE;
	}
	path = path_join(r->p->debugfs, "dropped");
	if (pr->has_dropped && !read_u64_file(path, &lost) && lost >= pr->dropped)
		snprintf(dropped, sizeof(dropped), "%llu",
			 (unsigned long long)(lost - pr->dropped));
	else
		snprintf(dropped, sizeof(dropped), "?");
	free(path);
	format_rate(rate, sizeof(rate), events / secs);
	format_size(size, sizeof(size), bytes);
	len = snprintf(line, sizeof(line),
		       "kmemtrace: %llus, %s events/s, %s written, %s dropped |",
		       (unsigned long long)(now - pr->start_ms) / 1000, rate, size,
		       dropped);
	for (i = 0; i < r->nr && len < sizeof(line); i++) {
		format_rate(rate, sizeof(rate), (r->cpus[i].bytes - r->cpus[i].shown) /
			    KMEMTRACE_EVENT_SIZE / secs);
		snprintf(item, sizeof(item), " cpu%d %s", r->cpus[i].cpu, rate);
		/* Keep room for " ..." unless this is the last CPU. */
		if (len + strlen(item) + (i + 1 < r->nr ? 4 : 0) > width) {
			len += snprintf(line + len, sizeof(line) - len, " ...");
			break;
		}
		len += snprintf(line + len, sizeof(line) - len, "%s", item);
	}
	if (len > width)
		line[width] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	pr->shown = true;
	pr->shown_ms = now;
	for (i = 0; i < r->nr; i++)
		r->cpus[i].shown = r->cpus[i].bytes;
}

/* Erase the progress line, for the messages that follow, and stop. */
static void progress_end(struct recorder *r)
{
	if (!r->progress.on)
		return;
	progress_erase();
	fflush(stderr);
	kmt_err_hook(NULL);
	progress_line = NULL;
	r->progress.on = false;
}

/*
 * Wait while the drains copy the streams: for signals, the end of CMD or
 * of the duration, and the pids the drains saw.  Look for new cpuN files
 * every KMT_POLL_MS, for CPUs that come online while recording.
 */
static int record_loop(struct recorder *r)
{
	uint64_t deadline = now_ms() + r->p->duration * 1000;
	uint64_t scanned = now_ms(), comms_scanned = now_ms();
	struct pollfd pfd[2] = {
		{ .fd = r->sigfd, .events = POLLIN },
		{ .fd = r->pidfd, .events = POLLIN },
	};
	int timeout;

	while ((timeout = record_timeout(r, deadline)) >= 0) {
		if (now_ms() - scanned >= KMT_POLL_MS) {
			scanned = now_ms();
			modules_poll(r);
			if (open_new_streams(r) || start_drains(r)) {
				progress_end(r);
				return -1;
			}
		}
		if (r->rescan_comms && now_ms() - comms_scanned >= KMT_COMMS_MS) {
			kmt_comm_rec_scan(r->comms);
			comms_scanned = now_ms();
		}
		poll(pfd, 2, timeout);
		take_pids(r);
		if (r->periodic && kmt_periodic_poll(r->periodic, now_ms()))
			r->periodic_failed = true;
		progress_show(r);
	}
	progress_end(r);
	return 0;
}

/*
 * Read the loss counters before enabling, so that the recording can tell
 * its own drops from those of earlier recordings: with kmemtrace off they
 * do not move, and they do not again once it is disabled at the end.
 * When kmemtrace was enabled already (by another reader), or the counters
 * cannot be read, the recording's drops are not known apart: DIR/dropped
 * then counts since boot, as the kernel's does.
 */
static void counters_start(struct recorder *r)
{
	struct start_counters *c = &r->start;
	uint64_t on = 0;
	char *path;
	int ret;

	path = path_join(r->p->debugfs, "enabled");
	ret = read_u64_file(path, &on);
	free(path);
	if (!ret && on) {
		kmt_err("warning: kmemtrace was enabled already, so dropped counts since boot");
		return;
	}
	path = path_join(r->p->debugfs, "dropped");
	ret = read_u64_file(path, &c->dropped);
	free(path);
	if (ret)
		return;
	path = path_join(r->p->debugfs, "stats");
	ret = read_file(path, &c->stats, &c->stats_len);
	if (ret && ret != -ENOENT)
		kmt_err("warning: %s: %s, so dropped counts since boot", path,
			strerror(-ret));
	free(path);
	c->exact = !ret || ret == -ENOENT;
}

/*
 * --sample: write @bytes to the kernel's sample_period (0 sets it back).
 * The kernel refuses while it records (EBUSY): say so.
 */
static int set_sample(struct recorder *r, uint64_t bytes)
{
	char *path = path_join(r->p->debugfs, "sample_period");
	char buf[32];
	int ret;

	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)bytes);
	ret = write_string(path, buf);
	if (ret == -ENOENT)
		kmt_err("%s: not found: this kernel cannot sample (older kmemtrace?)",
			path);
	else if (ret == -EBUSY)
		kmt_err("%s: busy: kmemtrace is recording already", path);
	else if (ret)
		kmt_err("%s: %s", path, strerror(-ret));
	free(path);
	return ret;
}

/*
 * Record until CMD ends, the duration is over, a stop signal comes or a
 * drain fails; kmemtrace is disabled and sample_period set back after.
 * The signals stay handled (close_signals()) until record has written
 * every file.
 */
/*
 * Whether the sample_period of the recording's events is known, in
 * @period: -s's, else the kernel's (kmemtrace.sample=), which cannot
 * change while kmemtrace records.  A kernel without sample_period
 * cannot sample: all its events have the same period, the first's.
 */
static bool recording_period(const struct recorder *r, uint32_t *period)
{
	char *path;
	uint64_t v;
	int ret;

	*period = r->p->sample;
	if (r->p->has_sample)
		return true;
	path = path_join(r->p->debugfs, "sample_period");
	ret = read_u64_file(path, &v);
	free(path);
	if (ret || v > KMT_MAX_SAMPLE)
		return false;
	*period = v;
	return true;
}

static int record_run(struct recorder *r)
{
	int ret;

	if (setup_signals(r))
		return -1;
	if (r->p->has_sample && set_sample(r, r->p->sample))
		return -1;
	counters_start(r);
	ret = set_enabled(r, true);
	if (!ret && r->p->cmd)
		ret = start_child(r);
	else if (!ret && !r->p->has_duration)
		kmt_err("recording, press Ctrl-C or send SIGTERM to stop");
	if (!ret) {
		progress_start(r);
		ret = record_loop(r);
	}
	if (r->enabled && set_enabled(r, false))
		ret = -1;
	if (r->p->has_sample && !r->enabled && set_sample(r, 0))
		ret = -1;
	if (r->child) {
		kill(r->child, SIGTERM);
		waitpid(r->child, NULL, 0);
	}
	return ret;
}

/* Copy @src to DIR/@name; on failure, leave no DIR/@name at all. */
static int copy_meta(struct recorder *r, const char *src, const char *name)
{
	char *dst = path_join(r->p->outdir, name);
	int ret;

	ret = copy_file(src, dst);
	if (ret && unlink(dst) && errno != ENOENT)
		kmt_err("%s: %s", dst, strerror(errno));
	free(dst);
	return ret;
}

/* Copy a file older kernels lack, with a warning when it is missing. */
static void copy_optional(struct recorder *r, const char *name,
			  const char *without)
{
	char *src = path_join(r->p->debugfs, name);

	if (access(src, F_OK) && errno == ENOENT)
		kmt_err("warning: %s: not found (older kernel?), %s", src, without);
	else if (copy_meta(r, src, name))
		kmt_err("warning: %s not copied, %s", name, without);
	free(src);
}

/*
 * Copy a file only some kernels have (tags: CONFIG_MEM_ALLOC_PROFILING),
 * saying nothing when it is missing.
 */
static void copy_if_present(struct recorder *r, const char *name,
			    const char *without)
{
	char *src = path_join(r->p->debugfs, name);

	if ((!access(src, F_OK) || errno != ENOENT) && copy_meta(r, src, name))
		kmt_err("warning: %s not copied, %s", name, without);
	free(src);
}

/*
 * Save the kmalloc tracepoint's format, whose table of gfp flags names
 * them as the traced kernel does (perf kmem reads it too): from
 * --tracefs, else from the tracing directory debugfs has beside the
 * kmemtrace one, else, with the default debugfs, from KMT_TRACEFS.
 * Without it, report names them as Linux 6.12 does; that is only worth
 * a word when --tracefs named where it should be.
 */
static void copy_gfp_format(struct recorder *r)
{
	const char *without = "report will name gfp flags as Linux 6.12 does";
	char *beside = path_join(r->p->debugfs, "../tracing");
	const char *dirs[2] = { beside, NULL };
	char *src = NULL;
	size_t i;

	if (r->p->tracefs)
		dirs[0] = r->p->tracefs;
	else if (!strcmp(r->p->debugfs, KMT_DEBUGFS))
		dirs[1] = KMT_TRACEFS;
	for (i = 0; i < ARRAY_SIZE(dirs) && dirs[i]; i++) {
		free(src);
		src = path_join(dirs[i], KMT_KMALLOC_FORMAT);
		if (!access(src, F_OK) || errno != ENOENT)
			break;
	}
	if (i < ARRAY_SIZE(dirs) && dirs[i]) {
		if (copy_meta(r, src, KMT_GFP_FORMAT_FILE))
			kmt_err("warning: %s not copied, %s", KMT_GFP_FORMAT_FILE,
				without);
	} else if (r->p->tracefs) {
		kmt_err("warning: %s: %s, %s", src, strerror(ENOENT), without);
	}
	free(src);
	free(beside);
}

/* Task names are a help: failing to write them only gets a warning. */
static void write_comms(struct recorder *r)
{
	char *path;

	if (!r->comms)
		return;
	path = path_join(r->p->outdir, "comms");
	kmt_comm_rec_scan(r->comms);
	if (kmt_comm_rec_write(r->comms, path))
		kmt_err("warning: no comms in %s, tasks will have no names",
			r->p->outdir);
	free(path);
}

/* Write @len bytes of @buf to DIR/@name; on failure, leave no DIR/@name. */
static int write_meta(struct recorder *r, const char *name, const char *buf,
		      size_t len)
{
	char *dst = path_join(r->p->outdir, name);
	int ret;

	ret = write_file(dst, buf, len);
	if (ret) {
		kmt_err("%s: %s", dst, strerror(-ret));
		unlink(dst);
	}
	free(dst);
	return ret;
}

static int write_u64_meta(struct recorder *r, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)v);
	return write_meta(r, name, buf, strlen(buf));
}

/*
 * Write DIR/dropped, the events the kernel dropped while recording, in
 * @lost too: the kernel's count now less that at the start.  With it go
 * DIR/dropped.start and DIR/stats.start, the counters at the start, which
 * check needs to hold each CPU to its drops.  When the start is not
 * known, DIR/dropped is the kernel's count since boot, without them.
 * Called with kmemtrace disabled and the streams drained.
 */
static int write_dropped(struct recorder *r, uint64_t *lost)
{
	struct start_counters *c = &r->start;
	char *src = path_join(r->p->debugfs, "dropped");
	int ret;

	ret = read_u64_file(src, lost);
	if (ret)
		kmt_err("%s: %s", src, ret == -EINVAL ? "not a number" : strerror(-ret));
	free(src);
	if (ret)
		return ret;
	if (c->exact && *lost < c->dropped) {
		kmt_err("warning: the kernel's dropped count went down from %llu to %llu, so dropped counts since boot",
			(unsigned long long)c->dropped, (unsigned long long)*lost);
		c->exact = false;
	}
	if (c->exact)
		*lost -= c->dropped;
	ret = write_u64_meta(r, "dropped", *lost);
	if (!ret && c->exact)
		ret = write_u64_meta(r, "dropped.start", c->dropped);
	if (!ret && c->exact && c->stats)
		ret = write_meta(r, "stats.start", c->stats, c->stats_len);
	return ret;
}

/*
 * Write DIR/unwritten when the output of a stream failed: per CPU, the
 * events its drain read but could not write, in @unwritten too.  They
 * are lost, no counter of the kernel has them, and they may be events
 * left before the recording, outside the window check holds each CPU
 * to: the file is how check finds them.
 */
static int write_unwritten(struct recorder *r, uint64_t *unwritten)
{
	static const char head[] = "# kmemtrace unwritten v1\n# cpu events\n";
	char *buf = NULL, line[64];
	size_t i, len = 0, n;
	uint64_t events;
	int ret = 0;

	*unwritten = 0;
	for (i = 0; i < r->nr; i++) {
		events = r->cpus[i].drain ? kmt_drain_unwritten(r->cpus[i].drain) : 0;
		if (!events)
			continue;
		if (!buf) {
			buf = xstrdup(head);
			len = strlen(head);
		}
		n = snprintf(line, sizeof(line), "%d %llu\n", r->cpus[i].cpu,
			     (unsigned long long)events);
		buf = xrealloc(buf, len + n + 1);
		memcpy(buf + len, line, n + 1);
		len += n;
		*unwritten += events;
	}
	if (buf) {
		kmt_err("%s: %llu events read but not written, counted in %s/unwritten",
			r->p->outdir, (unsigned long long)*unwritten, r->p->outdir);
		ret = write_meta(r, "unwritten", buf, len);
	}
	free(buf);
	return ret;
}

/*
 * Called with kmemtrace disabled and the streams drained, also when a
 * drain failed: the counters show what the recording lost.
 */
static int record_finish(struct recorder *r)
{
	char *abi = path_join(r->p->debugfs, "abi_version");
	uint64_t bytes = 0, lost = 0, unwritten;
	char not_written[64] = "";
	const char *only = "";
	int ret;
	size_t i;

	ret = copy_meta(r, abi, "abi_version");
	if (write_dropped(r, &lost))
		ret = -1;
	if (write_unwritten(r, &unwritten))
		ret = -1;
	copy_optional(r, "stats", "check cannot account for lost events per CPU");
	copy_optional(r, "caches", "report will show cache ids without names");
	copy_if_present(r, "tags", "report will show codetags as addresses");
	copy_if_present(r, "stacks", "report will show stacks as handles");
	if (r->p->has_sample)
		copy_optional(r, "sample_stats", "the samples' table is not known");
	copy_gfp_format(r);
	write_comms(r);
	modules_poll(r);
	if (write_kallsyms(r))
		kmt_err("warning: no kallsyms in %s, report will not symbolize",
			r->p->outdir);
	/* record runs on the traced machine: the events are in its order. */
	if (!r->p->pprof_only && kmt_ctf_write(r->p->outdir, KMT_HOST_BIG_ENDIAN))
		kmt_err("warning: no CTF metadata in %s, CTF readers will not read it",
			r->p->outdir);
	take_bytes(r);
	for (i = 0; i < r->nr; i++)
		bytes += r->cpus[i].bytes;
	if (unwritten)
		snprintf(not_written, sizeof(not_written), ", %llu not written",
			 (unsigned long long)unwritten);
	if (r->p->pprof_only && !r->drain_failed)
		only = "; the profiles only, the streams not kept (--pprof-only)";
	kmt_err("recorded %llu events (%llu bytes) from %zu CPUs into %s, %llu dropped%s%s%s",
		(unsigned long long)(bytes / KMEMTRACE_EVENT_SIZE),
		(unsigned long long)bytes, r->nr, r->p->outdir,
		(unsigned long long)lost, r->start.exact ? "" : " since boot",
		not_written, only);
	if (bytes % KMEMTRACE_EVENT_SIZE)
		kmt_err("warning: %llu bytes are not a whole number of events",
			(unsigned long long)bytes);
	free(abi);
	return ret ? -1 : 0;
}

/*
 * Close the streams.  With --pprof-only, remove them too: what the
 * profiles were made of was given back as they were (periodic.c), and
 * what is left of the files is no recording.  Not when a drain failed:
 * then the streams are what shows where the recording stopped.
 */
static void record_close(struct recorder *r)
{
	bool remove = r->p->pprof_only && !r->drain_failed;
	struct cpu_stream *cs;
	size_t i;

	for (i = 0; i < r->nr; i++) {
		cs = &r->cpus[i];
		kmt_drain_free(cs->drain);
		if (cs->in >= 0)
			close(cs->in);
		if (cs->out >= 0 && close(cs->out))
			kmt_err("%s: %s", cs->out_path, strerror(errno));
		if (remove && cs->out >= 0 && unlink(cs->out_path) &&
		    errno != ENOENT)
			kmt_err("%s: %s", cs->out_path, strerror(errno));
		free(cs->in_path);
		free(cs->out_path);
	}
	free(r->cpus);
}

int record_main(int argc, char **argv)
{
	struct kmt_header_src src;
	struct record_params p;
	struct recorder *r;
	bool has_period;
	uint32_t period;
	int ret;

	record_parse_args(argc, argv, &p);
	if (check_debugfs(p.debugfs) || make_outdir(p.outdir) || clean_outdir(&p))
		return 1;
	src.debugfs = p.debugfs;
	src.kallsyms = p.kallsyms;
	src.notes = p.notes;
	if (kmt_header_write(p.outdir, &src, argc - 1, argv + 1))
		return 1;
	r = xcalloc(1, sizeof(*r));
	r->p = &p;
	r->sigfd = -1;
	raise_nofile(r);
	/* Before enabling, read once for the names and the profiles. */
	has_period = recording_period(r, &period);
	/*
	 * The names of the tasks are for report: the profiles do not use
	 * them, and a recording left on for days would scan /proc every
	 * second and keep every pid it saw.
	 */
	if (!p.pprof_only) {
		r->comms = kmt_comm_rec_new(p.proc);
		kmt_comm_rec_scan(r->comms);
		/*
		 * A sampled recording names its few tasks as it first sees
		 * them: reading every task's name each second would cost more
		 * than the samples (make bench's guest of some 70 tasks: about
		 * 0.95 million instructions a second, three quarters of what an
		 * idle record ran), and grows with the tasks.
		 */
		r->rescan_comms = !has_period || !period;
	}
	r->pidfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->pidfd < 0) {
		kmt_err("eventfd: %s", strerror(errno));
		ret = -1;
	} else {
		modules_start(r);
		ret = open_streams(r);
	}
	if (!ret && p.empty && discard_streams(r))
		ret = -1;
	if (!ret)
		ret = start_drains(r);
	if (!ret && p.pprof_every) {
		r->periodic_params = (struct kmt_periodic_params){
			.dir = p.outdir, .debugfs = p.debugfs,
			.kallsyms = p.kallsyms, .seconds = p.pprof_every,
			.release = p.pprof_only, .period = period,
			.has_period = has_period,
		};
		r->periodic = kmt_periodic_start(&r->periodic_params, now_ms());
		if (!r->periodic)
			ret = -1;
	}
	if (!ret)
		ret = record_run(r);
	/* A CPU may have come online just before recording stopped. */
	if (!ret && (open_new_streams(r) || start_drains(r)))
		ret = -1;
	if (finish_drains(r))
		ret = -1;
	/*
	 * Once kmemtrace was enabled and disabled again, the last interval's
	 * profile, of every event left, and the side files are written
	 * whatever failed (a drain, CMD not found): without the counters,
	 * what the recording lost would not show.
	 */
	if (r->started && !r->enabled && r->periodic &&
	    kmt_periodic_finish(r->periodic, now_ms()))
		r->periodic_failed = true;
	if (r->started && !r->enabled && record_finish(r))
		ret = -1;
	/* A profile not written fails the command, not the recording. */
	if (r->periodic_failed)
		ret = -1;
	close_signals(r);
	record_close(r);
	if (r->pidfd >= 0)
		close(r->pidfd);
	free(r->start.stats);
	modules_free(&r->modules);
	kmt_periodic_free(r->periodic);
	kmt_comm_rec_free(r->comms);
	free(r);
	return ret ? 1 : 0;
}
