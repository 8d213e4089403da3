// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the names (comm) of the tasks of a trace
 *
 * DIR/comms is "# kmemtrace comms v1", then lines "PID<TAB>COMM": a pid
 * and a name it had, later lines being later names.  Bytes of COMM below
 * 0x20, 0x7f and backslash are written as \xHH, so that a line is a line.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comms.h"
#include "hash.h"
#include "utils.h"

/* Longest name read from /proc; kworker names go past TASK_COMM_LEN. */
#define COMM_MAX	256
/* A pid looked up that /proc did not name. */
#define NO_NAME		SIZE_MAX

/* ----------------------------------------------------------- reading */

static int comm_cmp(const void *a, const void *b)
{
	const struct kmt_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Undo the \xHH escapes of @s in place; return -EINVAL for a bad one. */
static int unescape(char *s)
{
	char *out = s;
	int hi, lo;

	for (; *s; s++) {
		if (*s != '\\') {
			*out++ = *s;
			continue;
		}
		if (s[1] != 'x')
			return -EINVAL;
		hi = hex_digit(s[2]);
		lo = hi < 0 ? -1 : hex_digit(s[3]);
		if (lo < 0 || (!hi && !lo))
			return -EINVAL;
		*out++ = hi << 4 | lo;
		s += 3;
	}
	*out = '\0';
	return 0;
}

/* Parse "PID<TAB>COMM"; return 0 and fill @kc, or -EINVAL. */
static int comms_line(char *line, size_t nr, struct kmt_comm *kc)
{
	char *tab = strchr(line, '\t');
	size_t len = strlen(line);
	uint64_t pid;

	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	if (!tab || tab == line)
		return -EINVAL;
	*tab = '\0';
	if (!isdigit((unsigned char)line[0]) || parse_u64(line, &pid) ||
	    pid > UINT32_MAX || unescape(tab + 1))
		return -EINVAL;
	kc->pid = pid;
	kc->comm = xstrdup(tab + 1);
	kc->line = nr;
	return 0;
}

/* Check the "# kmemtrace comms vN" line; return 0 if N is supported. */
static int comms_version(const char *path, const char *line, bool quiet)
{
	static const char prefix[] = "# kmemtrace comms v";
	uint64_t version;

	if (strncmp(line, prefix, sizeof(prefix) - 1) ||
	    parse_u64(line + sizeof(prefix) - 1, &version) || !version) {
		if (!quiet)
			kmt_err("%s: line 1: not \"%sN\", file ignored", path, prefix);
		return -EINVAL;
	}
	if (version > KMT_COMMS_VERSION) {
		if (!quiet)
			kmt_err("%s: comms format v%llu, this kmemtrace supports up to v%d, file ignored",
				path, (unsigned long long)version, KMT_COMMS_VERSION);
		return -EPROTO;
	}
	return 0;
}

size_t kmt_comms_load(struct kmt_comms *c, const char *dir, bool quiet)
{
	size_t len, nr = 0, problems = 0;
	char *path, *buf, *line, *next;
	struct kmt_comm kc;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!dir)
		return 0;
	path = path_join(dir, "comms");
	ret = is_regular(path);
	ret = ret <= 0 ? (ret ? ret : -EINVAL) : read_file(path, &buf, &len);
	if (ret) {
		if (ret != -ENOENT && !quiet)
			kmt_err("%s: %s, ignored", path,
				ret == -EINVAL ? "not a regular file" : strerror(-ret));
		free(path);
		return ret != -ENOENT;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (++nr == 1 && comms_version(path, line, quiet)) {
			kmt_comms_free(c);
			problems = 1;
			break;
		}
		if (line[0] == '#' || !line[strspn(line, " \t\r")])
			continue;
		if (comms_line(line, nr, &kc)) {
			if (!quiet)
				kmt_err("%s: line %zu: not \"PID<TAB>COMM\", skipped",
					path, nr);
			problems++;
			continue;
		}
		c->comms = xrealloc(c->comms, (c->nr + 1) * sizeof(*c->comms));
		c->comms[c->nr++] = kc;
	}
	free(buf);
	free(path);
	if (c->nr)
		qsort(c->comms, c->nr, sizeof(*c->comms), comm_cmp);
	return problems;
}

/* Index of the first name of @pid, or c->nr if none. */
static size_t comms_first(const struct kmt_comms *c, uint32_t pid)
{
	size_t lo = 0, hi = c->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nr && c->comms[lo].pid == pid ? lo : c->nr;
}

const char *kmt_comms_lookup(const struct kmt_comms *c, uint32_t pid)
{
	size_t i = comms_first(c, pid);

	if (i == c->nr)
		return NULL;
	while (i + 1 < c->nr && c->comms[i + 1].pid == pid)
		i++;
	return c->comms[i].comm;
}

bool kmt_comms_match(const struct kmt_comms *c, uint32_t pid,
		     const char *comm)
{
	size_t i;

	for (i = comms_first(c, pid); i < c->nr && c->comms[i].pid == pid; i++)
		if (!strcmp(c->comms[i].comm, comm))
			return true;
	return false;
}

void kmt_comms_free(struct kmt_comms *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->comms[i].comm);
	free(c->comms);
	memset(c, 0, sizeof(*c));
}

/* --------------------------------------------------------- recording */

/*
 * @names: every (pid, name) pair seen, in the order seen
 * @pids: the pids seen, each to its index in @last
 * @last: per pid, the index in @names of its last name, or NO_NAME
 * @nr_pids: number of pids seen
 */
struct kmt_comm_rec {
	char *proc;
	struct kmt_comm *names;
	size_t nr_names;
	struct kmt_map pids;
	size_t *last;
	size_t nr_pids;
};

struct kmt_comm_rec *kmt_comm_rec_new(const char *proc)
{
	struct kmt_comm_rec *r = xcalloc(1, sizeof(*r));

	r->proc = xstrdup(proc);
	return r;
}

/* The index of @pid in @r->last; *@added tells whether it is new. */
static uint32_t pid_index(struct kmt_comm_rec *r, uint32_t pid, bool *added)
{
	uint32_t i = kmt_map_insert(&r->pids, pid, r->nr_pids, added);

	if (*added) {
		r->last = xrealloc(r->last, (r->nr_pids + 1) * sizeof(*r->last));
		r->last[r->nr_pids++] = NO_NAME;
	}
	return i;
}

static void note_name(struct kmt_comm_rec *r, uint32_t pid, uint32_t i,
		      const char *comm)
{
	if (r->last[i] != NO_NAME && !strcmp(r->names[r->last[i]].comm, comm))
		return;
	r->names = xrealloc(r->names, (r->nr_names + 1) * sizeof(*r->names));
	r->names[r->nr_names].pid = pid;
	r->names[r->nr_names].comm = xstrdup(comm);
	r->names[r->nr_names].line = r->nr_names;
	r->last[i] = r->nr_names++;
}

/* Read a comm file; return 0 with the name in @buf, or -errno. */
static int read_comm(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* A /proc directory entry that is a pid; return it, or -1. */
static long proc_pid(const char *name)
{
	uint64_t pid;

	if (!isdigit((unsigned char)name[0]) || parse_u64(name, &pid) ||
	    pid > UINT32_MAX)
		return -1;
	return pid;
}

static void note_pid_file(struct kmt_comm_rec *r, uint32_t pid,
			  const char *path)
{
	char comm[COMM_MAX];
	bool added;
	uint32_t i;

	if (read_comm(path, comm, sizeof(comm)))
		return;
	i = pid_index(r, pid, &added);
	note_name(r, pid, i, comm);
}

static void scan_tasks(struct kmt_comm_rec *r, const char *pid)
{
	char path[512];
	struct dirent *de;
	long tid;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/task", r->proc, pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		tid = proc_pid(de->d_name);
		if (tid < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/task/%s/comm", r->proc, pid,
			 de->d_name);
		note_pid_file(r, tid, path);
	}
	closedir(d);
}

void kmt_comm_rec_scan(struct kmt_comm_rec *r)
{
	struct dirent *de;
	DIR *d;

	d = opendir(r->proc);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (proc_pid(de->d_name) >= 0)
			scan_tasks(r, de->d_name);
	closedir(d);
}

void kmt_comm_rec_pid(struct kmt_comm_rec *r, uint32_t pid)
{
	char path[512], comm[COMM_MAX];
	bool added;
	uint32_t i;

	i = pid_index(r, pid, &added);
	if (!added)
		return;
	/* A thread is not listed in /proc, but /proc/TID is there. */
	snprintf(path, sizeof(path), "%s/%u/comm", r->proc, pid);
	if (!read_comm(path, comm, sizeof(comm)))
		note_name(r, pid, i, comm);
}

static void write_escaped(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

int kmt_comm_rec_write(const struct kmt_comm_rec *r, const char *path)
{
	int ret = 0;
	size_t i;
	FILE *f;

	f = fopen(path, "we");
	if (!f) {
		ret = -errno;
		kmt_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	fprintf(f, "# kmemtrace comms v%d\n", KMT_COMMS_VERSION);
	fprintf(f, "# pid<TAB>comm, a later line of a pid is a later name\n");
	for (i = 0; i < r->nr_names; i++) {
		fprintf(f, "%u\t", r->names[i].pid);
		write_escaped(f, r->names[i].comm);
		fputc('\n', f);
	}
	return close_side_file(f, path, ret);
}

void kmt_comm_rec_free(struct kmt_comm_rec *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_names; i++)
		free(r->names[i].comm);
	free(r->names);
	kmt_map_free(&r->pids);
	free(r->last);
	free(r->proc);
	free(r);
}
