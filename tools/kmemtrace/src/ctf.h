/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - CTF 1.8 metadata, so that CTF readers (babeltrace2, Trace
 * Compass) read a recording as is
 *
 * The cpuN streams of ABI 3 are CTF streams without packet header or
 * context: each event is an event header (magic, abi_version, then kind
 * and type as one 16-bit event id, 3 reserved bytes, the time stamp) and
 * a payload of the other fields.  Only the metadata describing them is
 * written, in DIR/ctf, next to links to the streams: a CTF reader takes
 * every file of the trace's directory for a stream.
 */
#ifndef __KMEMTRACE_CTF_H
#define __KMEMTRACE_CTF_H

#include <stdbool.h>
#include <stdio.h>

#include "header.h"

/* The subdirectory of a recording that holds its CTF trace. */
#define KMT_CTF_DIR	"ctf"

/**
 * kmt_ctf_metadata() - write the CTF 1.8 metadata of ABI 3 streams
 * @f: where to write it
 * @big_endian: the byte order of the streams
 * @h: the header of the recording, for the trace's environment (its
 *	kernel_release, machine, build_id and clock), or NULL
 *
 * One event class per kind and type, named "KIND_TYPE" (alloc_kmalloc,
 * free_pages, ..., split_pages, the only split), with every field of the
 * event but the header's in its payload; the time stamp maps to a clock of
 * 1 GHz, "trace_clock_local".
 */
void kmt_ctf_metadata(FILE *f, bool big_endian, const struct kmt_header *h);

/**
 * kmt_ctf_write() - make a recording readable as a CTF trace
 * @dir: the recording's directory, whose cpuN files hold ABI 3 events
 * @big_endian: the byte order of the events
 *
 * Writes @dir/ctf/metadata (see kmt_ctf_metadata(), with @dir/header
 * when it is there) and a relative symbolic link @dir/ctf/cpuN to
 * ../cpuN for each cpuN file of @dir; the links of cpuN files @dir no
 * longer has are removed.
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_ctf_write(const char *dir, bool big_endian);

#endif /* __KMEMTRACE_CTF_H */
