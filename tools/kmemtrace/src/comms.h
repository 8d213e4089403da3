/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the names (comm) of the tasks of a trace
 *
 * Events carry the pid (the kernel's task id) of the task that allocated
 * or freed, not its name.  "kmemtrace record" saves the names it can find
 * in DIR/comms, so that the analyses can name tasks and filter by name.
 */
#ifndef __KMEMTRACE_COMMS_H
#define __KMEMTRACE_COMMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version of the comms format this kmemtrace writes and reads. */
#define KMT_COMMS_VERSION	1

/**
 * struct kmt_comm - one "PID<TAB>COMM" line of a comms file
 * @pid: the task id, as events carry it
 * @comm: the name, unescaped
 * @line: the line number in the file: later lines are later names
 */
struct kmt_comm {
	uint32_t pid;
	char *comm;
	size_t line;
};

/**
 * struct kmt_comms - the task names of a trace directory
 * @comms: the names, sorted by pid and then by line
 * @nr: number of @comms
 */
struct kmt_comms {
	struct kmt_comm *comms;
	size_t nr;
};

/**
 * kmt_comms_load() - read the comms file of a trace directory
 * @c: the table to fill; release it with kmt_comms_free()
 * @dir: the directory, or NULL for none
 * @quiet: say nothing, for a second reader of the same file
 *
 * A missing file leaves @c empty and is not a problem.  A line that is not
 * "PID<TAB>COMM" is a problem, reported and skipped; a first line
 * "# kmemtrace comms vN" with N not supported is a problem that makes the
 * whole file ignored.
 *
 * Return: the number of problems found.
 */
size_t kmt_comms_load(struct kmt_comms *c, const char *dir, bool quiet);

/**
 * kmt_comms_lookup() - the name of a task
 * @c: the table
 * @pid: the pid of an event
 *
 * Return: the last name @pid was seen with (a task that called exec, or
 * a pid reused, has had several), or NULL when unknown.
 */
const char *kmt_comms_lookup(const struct kmt_comms *c, uint32_t pid);

/**
 * kmt_comms_match() - whether a task had a name
 * @c: the table
 * @pid: the pid of an event
 * @comm: the name
 *
 * Return: true if @pid was seen with @comm, whichever name it had last.
 */
bool kmt_comms_match(const struct kmt_comms *c, uint32_t pid,
		     const char *comm);

/**
 * kmt_comms_free() - release what kmt_comms_load() allocated
 * @c: the table
 */
void kmt_comms_free(struct kmt_comms *c);

struct kmt_comm_rec;

/**
 * kmt_comm_rec_new() - start collecting task names, for "record"
 * @proc: where procfs is mounted, normally "/proc"
 *
 * Return: the collector, never NULL.
 */
struct kmt_comm_rec *kmt_comm_rec_new(const char *proc);

/**
 * kmt_comm_rec_scan() - note the names of every task alive now
 * @r: the collector
 *
 * Reads PROC/PID/task/TID/comm for every thread.
 */
void kmt_comm_rec_scan(struct kmt_comm_rec *r);

/**
 * kmt_comm_rec_pid() - note the name of a task an event names
 * @r: the collector
 * @pid: the pid of the event
 *
 * Reads PROC/@pid/comm the first time @pid is seen, so that a task that
 * exits before the next kmt_comm_rec_scan() is named too.
 */
void kmt_comm_rec_pid(struct kmt_comm_rec *r, uint32_t pid);

/**
 * kmt_comm_rec_write() - write what was collected as a comms file
 * @r: the collector
 * @path: the file
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_comm_rec_write(const struct kmt_comm_rec *r, const char *path);

/**
 * kmt_comm_rec_free() - release a collector
 * @r: the collector, or NULL
 */
void kmt_comm_rec_free(struct kmt_comm_rec *r);

#endif /* __KMEMTRACE_COMMS_H */
