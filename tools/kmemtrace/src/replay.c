// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace replay - the engine every view and exporter plugs into
 *
 * One pass over the events, merged in time order, replays every
 * allocation and free: a hash table holds the allocations still live,
 * a table the call sites seen, by index (live_obj.site), and the pass
 * counts the events, in all and by kind and type.
 * Consumers (struct replay_consumer, replay.h) see the allocations,
 * frees, resizes, stray frees, backing events and every event's time as
 * they are replayed, and the allocations still live at the end, each
 * only through the callbacks it asked for, never another's state: plot,
 * pprof, and the consumers of report's views (sitesums, lifetimes,
 * stackstat, keysums, pagesums, mismatches, allocinfo).
 *
 * The thread that merges the streams does what depends on the order of
 * all the events: the filters, @time.  What happens to a pointer
 * depends on its own events only: a shard (struct replay_shard) replays
 * those, with its live table, its call sites and origins, and its
 * consumers' contexts, and counts them.  With one job, the one shard
 * replays each batch in the merging thread, into the run's tables.  With
 * N, an event goes to the one of N shards of a hash of its pointer (the
 * pieces of a split page allocation to the shard of the allocation:
 * pass_shard()), as a
 * pointer into the chunk the merge read it into, a block at a time; N - 1
 * threads replay the shards' blocks, each shard's in order and by one
 * thread at a time, and so does the merging thread while a shard has no
 * room for its next block, so that the work is shared whichever part
 * costs more; with no block to replay, they read the streams ahead
 * for the merging thread (pass_idle()).  The first of those threads
 * reads the side files first (pass_late()).  The chunks are kept until
 * the shards are done with them, and the shards' results are added up
 * by key at the end.  See Documentation/kmemtrace.rst.
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmemtrace.h"
#include "replay.h"
#include "utils.h"

/* ------------------------------------------------------------- shards */

/* What the merging thread writes apart from what a shard's thread does. */
#define __cacheline_aligned	__kmt_attribute(aligned(64))

/* The callbacks a shard calls: those of the allocations. */
#define REPLAY_OBJ	(REPLAY_ALLOC | REPLAY_FREE | REPLAY_RESIZE | \
			 REPLAY_STRAY | REPLAY_BACKING | REPLAY_BATCH | REPLAY_SPLIT)

/*
 * What the merging thread tells a shard of an event: its address, with
 * SHARD_SEL when the filters select it; with SHARD_MARK, a mark instead,
 * for the mark users of the next entry of its block's @marks; with
 * SHARD_RETIRE, a split another shard replays, whose pieces this one
 * lets go of (shard_retire()).  The events lie at multiples of
 * KMEMTRACE_EVENT_SIZE from the start of the chunk the merge read them
 * into, from malloc(), 8 bytes aligned at least: the low bits are free.  One
 * word, as the merging thread writes entries into lines another CPU read
 * last, each line costing a wait (with a pointer and two counts in 16
 * bytes, handing the events of make bench-tool's trace out took 49 ms of
 * CPU time instead of 38, in perf's samples).
 */
struct shard_ev {
	uintptr_t v;
};

#define SHARD_SEL	1u
#define SHARD_MARK	2u
#define SHARD_RETIRE	4u
static_assert(KMEMTRACE_EVENT_SIZE % 8 == 0, "no free bits in event addresses");
static_assert(REPLAY_MAX_CONSUMERS <= 8, "marks are bytes");

static inline const struct kmemtrace_event *shard_event(struct shard_ev in)
{
	return (const struct kmemtrace_event *)(in.v & ~(uintptr_t)7);
}

/*
 * Events a block carries to a shard's thread, and blocks in flight: small
 * blocks, so that a thread that replays one keeps the others waiting
 * briefly, and many, so that the merging thread seldom finds a shard
 * without room while the other thread replays it (report -j 2 on make
 * bench-tool's trace, least of 12 runs: 0.242 s with 4096 and 4, 0.218 s
 * with these).  144 KiB of blocks a shard; more blocks in flight would
 * keep more chunks (32, in 0.225 s, kept 2 MiB more).
 */
#define SHARD_BLOCK	1024
#define SHARD_BLOCKS	16

struct shard_block {
	size_t n;
	size_t nr_marks;
	struct shard_ev in[SHARD_BLOCK];
	uint8_t marks[SHARD_BLOCK];	/* bit per mark user, of each mark */
};

/*
 * One shard of the pass: the events of the pointers it has.  With one
 * job, its tables are the run's own; with more, its own, with call sites
 * and origins of its own indexes, added up into the run's at the end
 * (shard_merge()).
 */
struct replay_shard {
	bool filtering;
	bool summary_only;
	bool overflow;
	uint32_t period;	/* the trace's sample_period */
	uint64_t other_period;	/* events of another sample_period */
	uint64_t count[KMT_KIND_MAX + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	uint64_t backing_allocs;
	uint64_t backing_bytes;
	uint64_t backing_frees;
	uint64_t unpaired;
	uint64_t selected;
	uint64_t double_allocs;
	uint64_t split_unknown;
	uint64_t live_selected;
	uint64_t live_selected_bytes;
	struct live_table *live;
	struct site_table *sites;
	struct origin_table *og;
	struct live_table own_live;
	struct site_table own_sites;
	struct origin_table own_og;
	struct replay_use uses[REPLAY_MAX_CONSUMERS];
	size_t nr_uses;
	struct replay_list on[REPLAY_NEEDS];	/* per enum replay_need bit */
	const struct replay_use *marks[REPLAY_MAX_CONSUMERS];
	/* The block the merging thread fills, in a cache line of its own. */
	struct shard_block *cur __cacheline_aligned;
	/*
	 * The blocks from the merging thread, with more than one job, under
	 * replay_pass.lock: @filled of them, @replayed replayed, one at a
	 * time, by whichever thread set @busy.
	 */
	struct shard_block *blocks __cacheline_aligned;
	size_t filled;
	size_t replayed;
	bool busy;
};

/* The consumers of callback @need (one enum replay_need bit). */
#define ON(r, need)	(&(r)->on[__builtin_ctz(need)])

static void call_alloc(struct replay_shard *sh, const struct kmemtrace_event *ev,
		       const struct live_obj *o)
{
	const struct replay_list *l = ON(sh, REPLAY_ALLOC);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->alloc(l->u[i]->ctx, ev, o);
}

static void call_free(struct replay_shard *sh, const struct kmemtrace_event *ev,
		      const struct live_obj *o, uint64_t life)
{
	const struct replay_list *l = ON(sh, REPLAY_FREE);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->free(l->u[i]->ctx, ev, o, life);
}

static void call_resize(struct replay_shard *sh, const struct kmemtrace_event *ev,
			const struct live_obj *o, uint64_t bytes)
{
	const struct replay_list *l = ON(sh, REPLAY_RESIZE);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->resize(l->u[i]->ctx, ev, o, bytes);
}

static void call_stray(struct replay_shard *sh, const struct kmemtrace_event *ev,
		       const struct live_obj *o, bool selected)
{
	const struct replay_list *l = ON(sh, REPLAY_STRAY);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->stray(l->u[i]->ctx, ev, o, selected);
}

static void call_backing(struct replay_shard *sh, const struct kmemtrace_event *ev,
			 bool selected)
{
	const struct replay_list *l = ON(sh, REPLAY_BACKING);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->backing(l->u[i]->ctx, ev, selected);
}

static void call_split(struct replay_shard *sh, const struct kmemtrace_event *ev,
		       const struct live_obj *o, uint64_t pieces)
{
	const struct replay_list *l = ON(sh, REPLAY_SPLIT);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->split(l->u[i]->ctx, ev, o, pieces);
}

static void call_batch(struct replay_shard *sh, const uint32_t *site, size_t n)
{
	const struct replay_list *l = ON(sh, REPLAY_BATCH);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->batch(l->u[i]->ctx, site, n);
}

/*
 * @time of the consumers of list @l, then @mark of those that asked for
 * it: return a bit per consumer (by its index in @l) that did.
 */
static unsigned int call_time(const struct replay_list *l,
			      const struct kmemtrace_event *ev)
{
	unsigned int i, marks = 0;

	for (i = 0; i < l->nr; i++) {
		if (l->u[i]->c->time(l->u[i]->ctx, ev) && l->u[i]->c->mark) {
			l->u[i]->c->mark(l->u[i]->ctx, ev);
			marks |= 1u << i;
		}
	}
	return marks;
}

/* The marks @marks at @ev, on the shard's contexts of the consumers. */
static void call_marks(struct replay_shard *sh, const struct kmemtrace_event *ev,
		       unsigned int marks)
{
	const struct replay_use *u;
	unsigned int i;

	for (i = 0; i < REPLAY_MAX_CONSUMERS; i++) {
		u = sh->marks[i];
		if ((marks & (1u << i)) && u)
			u->c->mark(u->ctx, ev);
	}
}

/* Sort the consumers by callback; 1 when there are too many. */
static int add_uses(struct report *r, const struct replay_use *uses, size_t n)
{
	unsigned int b;
	size_t i;

	if (n > REPLAY_MAX_CONSUMERS) {
		kmt_err("too many consumers of the pass: %zu", n);
		return 1;
	}
	for (i = 0; i < n; i++)
		for (b = 0; b < ARRAY_SIZE(r->on); b++)
			if (uses[i].c->needs & (1u << b))
				r->on[b].u[r->on[b].nr++] = &uses[i];
	return 0;
}

/*
 * The consumers of a shard: with one job, those registered, but for
 * @end; with more, a context of its own (@fork) of each that has
 * allocation callbacks, which @time and @end are not.
 */
static void shard_uses(struct replay_shard *sh, const struct replay_use *uses,
		       size_t n, bool sharded)
{
	unsigned int b, needs, m = 0;
	struct replay_use *u;
	size_t i;

	for (i = 0; i < n; i++) {
		needs = uses[i].c->needs & ~REPLAY_END;
		if (sharded)
			needs &= REPLAY_OBJ;
		u = NULL;
		if (needs) {
			u = &sh->uses[sh->nr_uses++];
			u->c = uses[i].c;
			u->ctx = sharded ? uses[i].c->fork(uses[i].ctx) : uses[i].ctx;
			for (b = 0; b < ARRAY_SIZE(sh->on); b++)
				if (needs & (1u << b))
					sh->on[b].u[sh->on[b].nr++] = u;
		}
		/* Marks are numbered as the list of @time numbers them. */
		if (uses[i].c->needs & REPLAY_TIME)
			sh->marks[m++] = sharded && uses[i].c->mark ? u : NULL;
	}
}

/*
 * The end of the pass: the live allocations still allocated
 * (replay_still_allocated()), then the end.
 */
static void call_end(struct replay_run *run)
{
	struct report *r = &run->r;
	const struct replay_list *l = ON(r, REPLAY_END);
	const struct live_obj *o;
	bool live = false;
	unsigned int i;
	size_t pos = 0;

	for (i = 0; i < l->nr; i++)
		live |= !!l->u[i]->c->live;
	while (live && (o = replay_live_next(r, &pos))) {
		if (!replay_still_allocated(o))
			continue;
		for (i = 0; i < l->nr; i++)
			if (l->u[i]->c->live)
				l->u[i]->c->live(l->u[i]->ctx, o);
	}
	for (i = 0; i < l->nr; i++)
		l->u[i]->c->end(l->u[i]->ctx, run, r->last_ts);
}

/* ------------------------------------------------------------- filters */

/* Whether a --site item names the call site @addr, printed as @name. */
static bool site_matches(const char *spec, uint64_t addr, const char *name)
{
	size_t len = strlen(spec);
	uint64_t v;

	if (spec[0] >= '0' && spec[0] <= '9')
		return !parse_u64(spec, &v) && v == addr;
	/* "func", "func+0xoff", or all of "func+0xoff [mod]". */
	return !strncmp(name, spec, len) &&
	       (!name[len] || name[len] == ' ' ||
		(name[len] == '+' && !strchr(spec, '+')));
}

static bool site_selected(struct report *r, struct site *site)
{
	const struct name_list *l = &r->p->filter.sites;
	const char *name;
	size_t i;

	if (site->selected == SITE_UNKNOWN) {
		site->selected = SITE_SKIPPED;
		name = kmt_symcache_name(&r->names, site->key, NULL);
		for (i = 0; i < l->nr; i++)
			if (site_matches(l->names[i], site->key, name))
				site->selected = SITE_SELECTED;
	}
	return site->selected == SITE_SELECTED;
}

static bool cache_selected(const struct report *r, uint32_t id)
{
	const struct name_list *l = &r->p->filter.caches;
	const char *name = kmt_caches_name(r->caches_file, id);
	uint64_t v;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (!parse_u64(l->names[i], &v) ? v == id :
		    name && !strcmp(name, l->names[i]))
			return true;
	}
	return false;
}

/* What the filters said of each pid and codetag, during a pass. */
struct filter_memo {
	struct kmt_map pids;
	struct kmt_map modules;
};

static bool pid_selected(const struct report *r, struct filter_memo *fm,
			 uint32_t pid)
{
	const struct name_list *l = &r->p->filter.comms;
	uint32_t sel;
	size_t i;

	if (kmt_map_find(&fm->pids, pid, &sel))
		return sel;
	sel = 0;
	for (i = 0; i < l->nr && !sel; i++)
		sel = kmt_comms_match(r->comms, pid, l->names[i]);
	kmt_map_insert(&fm->pids, pid, sel, NULL);
	return sel;
}

/* Whether the codetag @tag is of a module of --module. */
static bool module_selected(const struct report *r, struct filter_memo *fm,
			    uint64_t tag)
{
	const struct name_list *l = &r->p->filter.modules;
	const struct kmt_tag *t;
	const char *name;
	uint32_t sel;
	size_t i;

	if (!tag)
		return false;
	if (kmt_map_find(&fm->modules, tag, &sel))
		return sel;
	sel = 0;
	t = kmt_tags_find(r->tags, tag);
	name = !t ? NULL : t->module ? t->module : "vmlinux";
	for (i = 0; i < l->nr && name && !sel; i++)
		sel = !strcmp(name, l->names[i]);
	kmt_map_insert(&fm->modules, tag, sel, NULL);
	return sel;
}

/* Whether the filters select an allocation (or a free without one). */
static bool event_selected(struct report *r, struct filter_memo *fm,
			   const struct kmemtrace_event *ev, struct site *site)
{
	const struct kmt_filter *f = &r->p->filter;

	if (f->types && !(f->types & (1u << ev->type)))
		return false;
	if (f->cpus.nr && !kmt_u64_set_has(&f->cpus, ev->cpu))
		return false;
	if (f->pids.nr && !kmt_u64_set_has(&f->pids, ev->pid))
		return false;
	if (f->comms.nr && !pid_selected(r, fm, ev->pid))
		return false;
	if (f->caches.nr && (ev->type != KMEMTRACE_TYPE_CACHE ||
			     !cache_selected(r, ev->cache_id)))
		return false;
	if (f->sites.nr && !site_selected(r, site))
		return false;
	if (f->modules.nr && !module_selected(r, fm, ev->tag))
		return false;
	return true;
}

/* --------------------------------------------------------------- origins */

static uint32_t tag_index(struct origin_table *t, uint64_t tag)
{
	uint32_t i;
	bool added;

	if (kmt_map_find(&t->tag_map, tag, &i))
		return i;
	i = kmt_map_insert(&t->tag_map, tag, t->nr_tags, &added);
	t->tags = kmt_grow(t->tags, t->nr_tags, &t->size_tags, sizeof(*t->tags),
			   256);
	t->tags[t->nr_tags++] = tag;
	return i;
}

static uint32_t origin_add(struct origin_table *t, uint64_t tag, uint32_t stack)
{
	uint32_t ti = tag_index(t, tag), i;
	uint64_t key = (uint64_t)ti << 32 | stack;
	struct origin *o;
	bool added;

	if (kmt_map_find(&t->map, key, &i))
		return i;
	i = kmt_map_insert(&t->map, key, t->nr, &added);
	t->origins = kmt_grow(t->origins, t->nr, &t->size, sizeof(*t->origins),
			      256);
	o = &t->origins[t->nr++];
	o->tag = tag;
	o->stack = stack;
	o->tag_index = ti;
	return i;
}

/* The origin of an alloc: 0, without a tag and a stack, needs no lookup. */
static inline uint32_t event_origin(struct origin_table *t,
				    const struct kmemtrace_event *ev)
{
	if (!(ev->tag | ev->stack_id))
		return 0;
	return origin_add(t, ev->tag, ev->stack_id);
}

static void origin_table_free(struct origin_table *t)
{
	free(t->origins);
	kmt_map_free(&t->map);
	free(t->tags);
	kmt_map_free(&t->tag_map);
	memset(t, 0, sizeof(*t));
}

/* -------------------------------------------------------- a shard's pass */

/*
 * Live allocation @p is allocated again without a free (its free was not
 * seen): counted, and its consumers take it back (@resize to 0 without an
 * event).  The caller reuses or removes the slot.
 */
static void drop_unfreed(struct replay_shard *sh, const struct live_obj *p)
{
	sh->double_allocs++;
	if (ON(sh, REPLAY_RESIZE)->nr && p->selected)
		call_resize(sh, NULL, p, 0);
}

/* An allocation: @slot is the home slot of its memory, @si its site. */
static void account_alloc(struct replay_shard *sh,
			  const struct kmemtrace_event *ev, bool sel, size_t slot,
			  uint32_t si)
{
	unsigned int family = pair_type(ev->type);
	struct live_obj *o;

	o = live_probe(sh->live, slot, family, ev->ptr);
	if (o->family) {
		drop_unfreed(sh, o);
	} else {
		o->ptr = ev->ptr;
		o->family = family;
		sh->live->nr++;
	}
	o->ts = ev->timestamp;
	o->bytes = ev->bytes_alloc;
	o->bytes0 = ev->bytes_alloc;
	o->site = si;
	o->cpu = ev->cpu;
	o->pid = ev->pid;
	o->cache_id = ev->cache_id;
	o->origin = event_origin(sh->og, ev);
	o->type = ev->type;
	o->selected = sel;
	o->uncharged = !!(ev->flags & KMEMTRACE_FLAG_UNCHARGED);
	o->untracked = !!(ev->flags & KMEMTRACE_FLAG_UNTRACKED);
	if (!sel)
		return;
	if (ON(sh, REPLAY_ALLOC)->nr)
		call_alloc(sh, ev, o);
	sh->selected++;
}

/*
 * A free of memory not live in its family: memory allocated before the
 * trace, or memory of another API (a vmalloc() freed by kfree(), ...),
 * which is reported and stays live, as it was not freed.
 */
static void account_unknown_free(struct replay_shard *sh,
				 const struct kmemtrace_event *ev, bool sel)
{
	static const unsigned int families[] = {
		KMEMTRACE_TYPE_KMALLOC, KMEMTRACE_TYPE_PAGES,
		KMEMTRACE_TYPE_PERCPU, KMEMTRACE_TYPE_VMALLOC,
	};
	struct live_obj *o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (families[i] == pair_type(ev->type))
			continue;
		o = live_find(sh->live, families[i], ev->ptr);
		if (o) {
			if (ON(sh, REPLAY_STRAY)->nr)
				call_stray(sh, ev, o->selected ? o : NULL, false);
			return;
		}
	}
	/* The call site of such a free is a call site of the run. */
	site_index(sh->sites, ev->call_site);
	if (ON(sh, REPLAY_STRAY)->nr)
		call_stray(sh, ev, NULL, sel);
}

/* A free: @slot is the home slot of its memory. */
static void account_free(struct replay_shard *sh,
			 const struct kmemtrace_event *ev, bool sel, size_t slot)
{
	struct live_obj *o;

	o = live_probe(sh->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (!sh->summary_only)
			account_unknown_free(sh, ev, sel);
		return;
	}
	/* The summary does not look at frees, nor at their allocation. */
	if (!sh->summary_only && o->selected && ON(sh, REPLAY_FREE)->nr)
		call_free(sh, ev, o, ev->timestamp - o->ts);
	live_remove(sh->live, o);
}

/* A resize in place: @slot is the home slot of its memory. */
static void account_realloc(struct replay_shard *sh,
			    const struct kmemtrace_event *ev, size_t slot)
{
	struct live_obj *o;

	o = live_probe(sh->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (ON(sh, REPLAY_STRAY)->nr)
			call_stray(sh, ev, NULL, false);
		return;
	}
	if (ON(sh, REPLAY_RESIZE)->nr && o->selected)
		call_resize(sh, ev, o, ev->bytes_alloc);
	o->bytes = ev->bytes_alloc;
}

/*
 * Split @ev: a page live here at a piece's address but the first is
 * memory whose free was not seen, now part of the allocation split: it
 * goes, as memory allocated again without a free does.  For the shard
 * that replays the split when it has no live allocation to split, and
 * (SHARD_RETIRE) for every other shard, which may have had events of
 * those addresses before the split (pass_shard()): so that each does
 * what account_split() does with one job.  Not for a split flagged
 * untracked (sampled: its pieces' frees will not come) or backing,
 * which make no pieces.
 */
static void shard_retire(struct replay_shard *sh, const struct kmemtrace_event *ev)
{
	uint64_t pieces = kmt_split_pieces(ev), i;
	struct live_obj *p;

	if (ev->flags & (KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED |
			 KMEMTRACE_FLAG_UNTRACKED))
		return;
	for (i = 1; i < pieces && sh->live->nr; i++) {
		p = live_find(sh->live, KMEMTRACE_TYPE_PAGES, ev->ptr + i * ev->bytes_req);
		if (!p)
			continue;
		drop_unfreed(sh, p);
		live_remove(sh->live, p);
	}
}

/*
 * A split in place: @slot is the home slot of its memory.  The live page
 * allocation of @ev->bytes_alloc bytes at its pointer keeps the first
 * piece; every other piece becomes a live allocation like it (its time,
 * call site, origin, selection, ...) at its own address, so that each
 * free pairs with its piece.  The pieces' bytes add up to the
 * allocation's, whose sample weight (@bytes0) they keep: a sampled
 * allocation stood for as many like it, each split alike.  Room is kept
 * for the @more events of the batch after it (shard_batch()).  A split
 * of memory not live (allocated before the trace) or of another size is
 * only counted.  The events of the pieces come to this shard from then
 * on (pass_shard()).  A sampled allocation split flagged untracked is
 * one the kernel stopped following, whose pieces' frees will not come:
 * it leaves the live table as memory allocated again without a free
 * does, for the consumers (@resize to 0 without an event).
 */
static void account_split(struct replay_shard *sh,
			  const struct kmemtrace_event *ev, size_t slot,
			  size_t more)
{
	uint64_t pieces = kmt_split_pieces(ev), i, ptr;
	struct live_obj *o, *p, piece;

	o = live_probe(sh->live, slot, KMEMTRACE_TYPE_PAGES, ev->ptr);
	if (!o->family || o->bytes != ev->bytes_alloc) {
		sh->split_unknown++;
		shard_retire(sh, ev);
		return;
	}
	if (ev->flags & KMEMTRACE_FLAG_UNTRACKED) {
		if (ON(sh, REPLAY_RESIZE)->nr && o->selected)
			call_resize(sh, NULL, o, 0);
		live_remove(sh->live, o);
		return;
	}
	o->bytes = ev->bytes_req;
	if (ON(sh, REPLAY_SPLIT)->nr && o->selected)
		call_split(sh, ev, o, pieces);
	piece = *o;
	/* The slots move: @o is no more. */
	live_reserve(sh->live, pieces - 1 + more);
	for (i = 1; i < pieces; i++) {
		ptr = ev->ptr + i * ev->bytes_req;
		p = live_probe(sh->live,
			       live_hash(KMEMTRACE_TYPE_PAGES, ptr, sh->live->bits),
			       KMEMTRACE_TYPE_PAGES, ptr);
		if (p->family)
			drop_unfreed(sh, p);
		else
			sh->live->nr++;
		*p = piece;
		p->ptr = ptr;
	}
}

/* Backing store events are only counted, unpaired frees skipped. */
static void account_backing(struct replay_shard *sh,
			    const struct kmemtrace_event *ev)
{
	if (kmt_event_is_unpaired(ev)) {
		sh->unpaired++;
	} else if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		sh->backing_allocs++;
		sh->overflow |= add_u64_sat(&sh->backing_bytes, ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		sh->backing_frees++;
	}
}

/*
 * Split @in[@i] of a batch of @n (shard_batch()): the live table may grow
 * for the pieces, which moves the slots, and then the home slots of the
 * events after it are found again.
 */
static void shard_split(struct replay_shard *sh, const struct shard_ev *in,
			size_t *slot, size_t i, size_t n)
{
	unsigned int bits = sh->live->bits;
	const struct kmemtrace_event *e;

	account_split(sh, shard_event(in[i]), slot[i], n - i - 1);
	if (sh->live->bits == bits)
		return;
	for (i++; i < n; i++) {
		e = shard_event(in[i]);
		slot[i] = live_hash(pair_type(e->type), e->ptr, sh->live->bits);
	}
}

/*
 * Replay a batch of the shard's events, in order: an alloc makes its
 * memory (type and pointer) live with its size, a realloc of live
 * memory changes the size, a split of live pages makes each piece live
 * (account_split()), a free ends it.  Memory live at the end is
 * still allocated.  Memory allocated before the trace started is not
 * counted, even when a realloc shows it.  Backing store events are only
 * counted and go to their consumers, unpaired frees skipped.  Every
 * event is counted by kind and type here, where the shard reads it
 * anyway: the counts do not depend on the order, and the shards' are
 * added up at the end (pass_end()).
 *
 * Events come in faster than the tables answer, as memory is freed in
 * another order than it was allocated and call sites come in any order:
 * the slots and the sites of a batch are looked up first, so that the
 * CPU fetches them all at once, then the events are replayed, finding
 * what they need in the CPU caches.
 */
#define SHARD_AHEAD	8

static void shard_batch(struct replay_shard *sh, const struct shard_ev *in,
			size_t n, const uint8_t **marks)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	const struct replay_list *time = ON(sh, REPLAY_TIME);
	size_t slot[KMT_MERGE_BATCH], mask;
	uint32_t si[KMT_MERGE_BATCH];
	const struct kmemtrace_event *e;
	struct live_obj *slots;
	size_t i;

	/* The slots stay where they are during the batch. */
	live_reserve(sh->live, n);
	slots = sh->live->slots;
	mask = ((size_t)1 << sh->live->bits) - 1;
	for (i = 0; i < n; i++) {
		/*
		 * With more than one job, the merging thread read the event
		 * into another CPU's caches: fetch it ahead, both its lines.
		 */
		if (i + SHARD_AHEAD < n) {
			e = shard_event(in[i + SHARD_AHEAD]);
			__builtin_prefetch(e);
			__builtin_prefetch((const char *)e + KMEMTRACE_EVENT_SIZE - 1);
		}
		e = shard_event(in[i]);
		slot[i] = live_hash(pair_type(e->type), e->ptr, sh->live->bits);
		/* A removal looks at the next slot too. */
		__builtin_prefetch(&slots[slot[i]], 1);
		__builtin_prefetch((char *)&slots[slot[i]] + 63, 1);
		__builtin_prefetch(&slots[(slot[i] + 1) & mask].untracked, 1);
		si[i] = 0;
		if (e->kind != KMEMTRACE_KIND_ALLOC || (e->flags & special) ||
		    (in[i].v & SHARD_MARK))
			continue;
		if (!kmt_map_find(&sh->sites->map, e->call_site, &si[i]))
			si[i] = site_index(sh->sites, e->call_site);
	}
	if (ON(sh, REPLAY_BATCH)->nr)
		call_batch(sh, si, n);
	for (i = 0; i < n; i++) {
		e = shard_event(in[i]);
		if (in[i].v & SHARD_MARK) {
			call_marks(sh, e, *(*marks)++);
			continue;
		}
		if (in[i].v & SHARD_RETIRE) {
			shard_retire(sh, e);
			continue;
		}
		if (time->nr)
			call_time(time, e);
		sh->count[e->kind][e->type]++;
		sh->other_period += e->sample_period != sh->period;
		if (e->flags & special) {
			account_backing(sh, e);
			if (ON(sh, REPLAY_BACKING)->nr)
				call_backing(sh, e, in[i].v & SHARD_SEL);
			continue;
		}
		if (e->kind == KMEMTRACE_KIND_ALLOC)
			account_alloc(sh, e, in[i].v & SHARD_SEL, slot[i], si[i]);
		else if (e->kind == KMEMTRACE_KIND_FREE)
			account_free(sh, e, in[i].v & SHARD_SEL, slot[i]);
		else if (e->kind == KMEMTRACE_KIND_REALLOC)
			account_realloc(sh, e, slot[i]);
		else
			shard_split(sh, in, slot, i, n);
	}
}

/* What is still allocated at the end (replay_still_allocated()), in all. */
static void shard_live_sums(struct replay_shard *sh)
{
	const struct live_table *lt = sh->live;
	const struct live_obj *o;
	size_t i;

	for (i = 0; lt->nr && i < (size_t)1 << lt->bits; i++) {
		o = &lt->slots[i];
		if (!o->family || !replay_still_allocated(o))
			continue;
		sh->live_selected++;
		sh->overflow |= add_u64_sat(&sh->live_selected_bytes, o->bytes);
	}
}

/* ----------------------------------------------------------- the pass */

/*
 * The pass: the merging thread's part, and the shards.  @sel_sites holds
 * whether the filters select call sites, apart from the call sites the
 * shards add up.
 */
struct replay_pass {
	struct report *r;
	bool filtering;		/* a filter but --time selects allocations */
	bool summary_only;	/* the summary is the only view */
	struct filter_memo memo;
	struct replay_shard *shards;
	unsigned int nr;
	bool threads;
	/* With more than one job: the other threads, and the blocks' lock. */
	pthread_t thread[KMT_MAX_JOBS];
	unsigned int nr_threads;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a block was filled, or the end */
	pthread_cond_t room;		/* a block was replayed */
	bool done;
	/*
	 * Whether a thread that waits spins first (pass_spin()), and what
	 * it watches: @work and @room, counted, under @lock.
	 */
	bool spin;
	unsigned long work_gen;
	unsigned long room_gen;
	/*
	 * Work the first other thread does before replaying, under @lock:
	 * reading the side files (pass_late()).
	 */
	int (*late)(void *arg);
	void *late_arg;
	/*
	 * What a thread does when it has no block to replay, under @lock:
	 * read a stream ahead for the merging thread (kmt_merge_read_ahead()).
	 */
	bool (*idle)(void *arg);
	void *idle_arg;
	/*
	 * For the host tests only: how long a thread sleeps after idle work
	 * that found nothing to do, with @lock dropped
	 * (KMEMTRACE_TEST_IDLE_DELAY_US), so that the pass may end meanwhile.
	 */
	unsigned int test_idle_delay_us;
	enum { LATE_NONE, LATE_PENDING, LATE_RUNNING, LATE_DONE } late_state;
	int late_err;
	pthread_cond_t late_done;
	struct site_table sel_sites;
	/*
	 * The regions of split allocations, with more than one job: key the
	 * region's start ORed with log2 of its size, value its shard;
	 * @split_sizes has bit k set for a region of 2^k bytes (pass_shard()).
	 */
	struct kmt_map split_map;
	uint64_t split_sizes;
	struct shard_ev in[KMT_MERGE_BATCH];
	struct kept_chunk *kept;
	size_t nr_kept;
	size_t size_kept;
};

/* @work or @room is signalled: count it for the threads that spin. */
static void pass_tick(unsigned long *gen)
{
	__atomic_store_n(gen, *gen + 1, __ATOMIC_RELAXED);
}

/*
 * How long a thread spins before it sleeps.  A block takes the merging
 * thread some 25 us to fill on the bench's trace, and the other thread
 * about as long to replay: less than a sleep and a wake-up cost the two,
 * which report -j 2 paid once a block (11000 context switches on make
 * bench-tool's trace; some 30 with a spin of 50 us, as many as with
 * 200 us).  Short, as a spin that waits for a thread the host or the
 * kernel does not run only burns the CPU.
 */
#define PASS_SPIN_NS	50000

/*
 * Before waiting on @gen's condition, while each thread has a CPU of its
 * own: wait for @gen to move on from @seen for up to PASS_SPIN_NS,
 * without @ps->lock.  Called and returns with the lock held; return
 * whether @gen moved on, else the caller waits on the condition.
 */
static bool pass_spin(struct replay_pass *ps, unsigned long *gen,
		      unsigned long seen)
{
	uint64_t t0;
	unsigned int i;

	if (!ps->spin)
		return false;
	pthread_mutex_unlock(&ps->lock);
	t0 = kmt_now_ns();
	for (i = 1; __atomic_load_n(gen, __ATOMIC_RELAXED) == seen; i++) {
		kmt_cpu_relax();
		if (!(i % 256) && kmt_now_ns() - t0 >= PASS_SPIN_NS)
			break;
	}
	pthread_mutex_lock(&ps->lock);
	return *gen != seen;
}

/*
 * A shard with a block to replay that no thread is replaying, @first if
 * it has one, or NULL.  Under @ps->lock.
 */
static struct replay_shard *pass_pending(struct replay_pass *ps,
					 struct replay_shard *first)
{
	struct replay_shard *sh;
	unsigned int k;

	if (first && !first->busy && first->replayed != first->filled)
		return first;
	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		if (!sh->busy && sh->replayed != sh->filled)
			return sh;
	}
	return NULL;
}

/*
 * The shard with the most blocks to replay that no thread is replaying,
 * or NULL: what another thread than the merging one takes next, so that
 * the merging thread seldom finds the shard it fills without room and
 * the others without blocks to give it.  Under @ps->lock.
 */
static struct replay_shard *pass_fullest(struct replay_pass *ps)
{
	struct replay_shard *sh, *best = NULL;
	unsigned int k;

	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		if (!sh->busy && sh->replayed != sh->filled &&
		    (!best || sh->filled - sh->replayed >
			      best->filled - best->replayed))
			best = sh;
	}
	return best;
}

/*
 * Replay the next block of shard @sh, which no thread is replaying.
 * Called and returns with @ps->lock held, which it drops meanwhile.
 */
static void pass_replay_block(struct replay_pass *ps, struct replay_shard *sh)
{
	struct shard_block *b = &sh->blocks[sh->replayed % SHARD_BLOCKS];
	const uint8_t *marks = b->marks;
	size_t i, n;

	sh->busy = true;
	pthread_mutex_unlock(&ps->lock);
	for (i = 0; i < b->n; i += n) {
		n = b->n - i < KMT_MERGE_BATCH ? b->n - i : KMT_MERGE_BATCH;
		shard_batch(sh, b->in + i, n, &marks);
	}
	pthread_mutex_lock(&ps->lock);
	sh->replayed++;
	sh->busy = false;
	pass_tick(&ps->room_gen);
	pass_tick(&ps->work_gen);
	pthread_cond_broadcast(&ps->room);
	pthread_cond_broadcast(&ps->work);
}

/*
 * Do the work pass_start() was given, if no thread has taken it yet.
 * Called and returns with @ps->lock held, which it drops meanwhile.
 */
static void pass_take_late(struct replay_pass *ps)
{
	int err;

	if (ps->late_state != LATE_PENDING)
		return;
	ps->late_state = LATE_RUNNING;
	pthread_mutex_unlock(&ps->lock);
	err = ps->late(ps->late_arg);
	pthread_mutex_lock(&ps->lock);
	ps->late_err = err;
	ps->late_state = LATE_DONE;
	pthread_cond_signal(&ps->late_done);
}

/*
 * With no block to replay, do @ps->idle's work, if any.  Called and
 * returns with @ps->lock held, which it drops meanwhile; return whether
 * it did something.
 */
static bool pass_idle(struct replay_pass *ps)
{
	bool (*idle)(void *arg) = ps->idle;
	void *arg = ps->idle_arg;
	bool did;

	if (!idle)
		return false;
	pthread_mutex_unlock(&ps->lock);
	did = idle(arg);
	if (!did && ps->test_idle_delay_us)
		usleep(ps->test_idle_delay_us);
	pthread_mutex_lock(&ps->lock);
	return did;
}

/* Set what the threads do when idle (NULL: nothing), for pass_idle(). */
static void pass_idle_set(struct replay_pass *ps, bool (*idle)(void *arg),
			  void *arg)
{
	pthread_mutex_lock(&ps->lock);
	ps->idle = idle;
	ps->idle_arg = arg;
	pthread_mutex_unlock(&ps->lock);
}

/* The idle work of a sharded pass: read the streams ahead of the merge. */
static bool pass_read_ahead(void *arg)
{
	return kmt_merge_read_ahead(arg);
}

/*
 * A thread of the pass: do the work pass_start() was given, then replay
 * the shards' blocks, each shard's in order, taking the shard with the
 * most blocks waiting, until the end; with none waiting, read the
 * streams ahead for the merging thread (pass_idle()).
 */
static void *pass_thread(void *arg)
{
	struct replay_pass *ps = arg;
	struct replay_shard *sh = NULL;
	unsigned long seen;

	pthread_mutex_lock(&ps->lock);
	pass_take_late(ps);
	for (;;) {
		sh = pass_fullest(ps);
		if (sh) {
			pass_replay_block(ps, sh);
			continue;
		}
		if (ps->done)
			break;
		/*
		 * The idle work drops the lock: a block, or the end, that
		 * came meanwhile was signalled to no one waiting.  Wait only
		 * for what comes after the look above.
		 */
		seen = ps->work_gen;
		if (pass_idle(ps) || ps->work_gen != seen)
			continue;
		if (!pass_spin(ps, &ps->work_gen, seen))
			pthread_cond_wait(&ps->work, &ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	return NULL;
}

/*
 * The work pass_start() was given, done: by another thread while the
 * merging thread merged, or now.  Its side files are only read once
 * the events are replayed, which do not need them: another thread reads
 * them at its start (6 ms for make bench-tool's 3 MB kallsyms, which the
 * other thread spent waiting, at the end, when the merging thread did),
 * while the merging thread replays blocks in its stead.
 * Return: what the work returned.
 */
static int pass_late(struct replay_pass *ps)
{
	int err;

	if (!ps->threads)
		return ps->late ? ps->late(ps->late_arg) : 0;
	pthread_mutex_lock(&ps->lock);
	pass_take_late(ps);
	while (ps->late_state == LATE_RUNNING)
		pthread_cond_wait(&ps->late_done, &ps->lock);
	err = ps->late_err;
	pthread_mutex_unlock(&ps->lock);
	return err;
}

/*
 * The blocks of other shards than @h that no thread has started: what
 * the other threads have to do while the merging thread replays one of
 * @h's.  Under @ps->lock.
 */
static size_t pass_backlog(const struct replay_pass *ps,
			   const struct replay_shard *h)
{
	const struct replay_shard *sh;
	size_t n = 0;
	unsigned int k;

	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		if (sh != h)
			n += sh->filled - sh->replayed - sh->busy;
	}
	return n;
}

/*
 * Hand the block being filled to the threads; while shard @sh has no
 * room for another, the merging thread, ahead of the others, replays
 * blocks itself: @sh's if no thread is on it, else another shard's, but
 * only while the other threads have blocks of other shards to replay
 * meanwhile, as one shard's blocks are replayed one at a time: else it
 * would keep them waiting.  Else it waits for room.
 */
static void shard_send(struct replay_pass *ps, struct replay_shard *sh)
{
	struct replay_shard *h;

	pthread_mutex_lock(&ps->lock);
	sh->filled++;
	pass_tick(&ps->work_gen);
	pthread_cond_signal(&ps->work);
	while (sh->filled - sh->replayed == SHARD_BLOCKS) {
		h = pass_pending(ps, sh);
		if (h && (pass_backlog(ps, h) || !ps->nr_threads))
			pass_replay_block(ps, h);
		else if (!pass_spin(ps, &ps->room_gen, ps->room_gen))
			pthread_cond_wait(&ps->room, &ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	sh->cur = &sh->blocks[sh->filled % SHARD_BLOCKS];
	sh->cur->n = 0;
	sh->cur->nr_marks = 0;
}

/*
 * Add an entry to the block a shard is given next.  Its event stays in
 * the chunk the merge read it into (pass_swap()).
 */
static inline void shard_push(struct replay_pass *ps, struct replay_shard *sh,
			      struct shard_ev in, unsigned int marks)
{
	struct shard_block *b = sh->cur;

	if (in.v & SHARD_MARK)
		b->marks[b->nr_marks++] = marks;
	b->in[b->n] = in;
	if (++b->n == SHARD_BLOCK)
		shard_send(ps, sh);
}

/*
 * A chunk of events the merge is done with, and the shards maybe not:
 * free once each shard replayed @need[shard] blocks.  Past KEPT_MAX of
 * them, the blocks being filled are sent as they are, so that a shard
 * that gets few events does not keep the chunks they point into.
 */
#define KEPT_MAX	16

struct kept_chunk {
	unsigned char *buf;
	size_t need[KMT_MAX_JOBS];
};

/*
 * The merge is done with the chunk @buf, whose events went to blocks:
 * keep @buf until the shards replayed those, and give the stream the
 * oldest chunk they are done with, or a new one.
 */
static unsigned char *pass_swap(void *arg, unsigned char *buf)
{
	struct replay_pass *ps = arg;
	size_t replayed[KMT_MAX_JOBS];
	struct kept_chunk *kc;
	unsigned char *free_buf = NULL;
	unsigned int k;

	ps->kept = kmt_grow(ps->kept, ps->nr_kept, &ps->size_kept,
			    sizeof(*ps->kept), 16);
	kc = &ps->kept[ps->nr_kept++];
	kc->buf = buf;
	for (k = 0; k < ps->nr; k++) {
		if (ps->nr_kept > KEPT_MAX && ps->shards[k].cur->n)
			shard_send(ps, &ps->shards[k]);
		kc->need[k] = ps->shards[k].filled + !!ps->shards[k].cur->n;
	}
	pthread_mutex_lock(&ps->lock);
	for (k = 0; k < ps->nr; k++)
		replayed[k] = ps->shards[k].replayed;
	pthread_mutex_unlock(&ps->lock);
	kc = &ps->kept[0];
	for (k = 0; k < ps->nr && kc->need[k] <= replayed[k]; k++)
		;
	if (k == ps->nr) {
		free_buf = kc->buf;
		memmove(kc, kc + 1, --ps->nr_kept * sizeof(*kc));
	}
	return free_buf ? free_buf :
	       xmalloc(KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE);
}

/*
 * The shard of the events of a pointer, whatever their family: a stray
 * free finds another family's allocation of its pointer in its shard.
 */
static inline unsigned int shard_of(uint64_t ptr, unsigned int nr)
{
	return kmt_shard(ptr, nr);
}

/*
 * The shard of page-aligned @ptr inside a split allocation: that of the
 * allocation, by the largest split region that holds it (a region is
 * aligned to its size, so regions nest or are apart); else its own.
 */
static unsigned int split_shard(const struct replay_pass *ps, uint64_t ptr)
{
	uint64_t sizes = ps->split_sizes;
	unsigned int k;
	uint32_t shard;

	while (sizes) {
		k = 63 - __builtin_clzll(sizes);
		if (kmt_map_find(&ps->split_map, (ptr & ~((1ULL << k) - 1)) | k,
				 &shard))
			return shard;
		sizes &= ~(1ULL << k);
	}
	return shard_of(ptr, ps->nr);
}

/*
 * The shard of event @e.  That of its pointer; but the shard that
 * replays a split page allocation makes every piece live at its own
 * address (account_split()), and replays their events from then on: a
 * split goes to the shard of its allocation, and its region, its size
 * aligned, is noted as that shard's.  Kept for the rest of the pass,
 * each region a key (one per huge page), as any later event in it is in
 * the shard: a page of it, freed, may be allocated again, split again.
 * A larger region noted later takes over the shard of what it holds,
 * whose allocations were all gone when it was allocated.  The other
 * shards get the split too, to let go of what they had of its pieces,
 * pages whose free was lost (shard_retire()).
 */
static unsigned int pass_split(struct replay_pass *ps,
			       const struct kmemtrace_event *e)
{
	unsigned int shard = split_shard(ps, e->ptr), k;

	k = __builtin_ctzll(e->bytes_alloc);
	kmt_map_insert(&ps->split_map, e->ptr | k, shard, NULL);
	ps->split_sizes |= 1ULL << k;
	/* The other shards let go of what they had of its pieces. */
	for (k = 0; k < ps->nr; k++)
		if (k != shard)
			shard_push(ps, &ps->shards[k],
				   (struct shard_ev){ (uintptr_t)e | SHARD_RETIRE }, 0);
	return shard;
}

static inline unsigned int pass_shard(struct replay_pass *ps,
				      const struct kmemtrace_event *e)
{
	if (__builtin_expect(e->kind == KMEMTRACE_KIND_SPLIT, 0))
		return pass_split(ps, e);
	if (__builtin_expect(ps->split_sizes != 0, 0) && !(e->ptr & 4095))
		return split_shard(ps, e->ptr);
	return shard_of(e->ptr, ps->nr);
}

/*
 * What the filters say of event @e: whether they select an allocation,
 * a free without one, or (for the backing consumers) a backing alloc.
 */
static uint16_t pass_selected(struct replay_pass *ps,
			      const struct kmemtrace_event *e, bool backing)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	struct report *r = ps->r;

	if (e->flags & special) {
		if (!backing || e->kind != KMEMTRACE_KIND_ALLOC ||
		    kmt_event_is_unpaired(e))
			return 1;
	} else if (e->kind == KMEMTRACE_KIND_REALLOC || e->kind == KMEMTRACE_KIND_SPLIT ||
		   (e->kind != KMEMTRACE_KIND_ALLOC && ps->summary_only)) {
		return 1;
	}
	return event_selected(r, &ps->memo, e,
			      site_get(&ps->sel_sites, e->call_site));
}

/*
 * Hand @n events of a batch to their shards, all selected and without
 * marks: the merging thread's whole part of an event, with no filter
 * and no @time.
 */
static void pass_route(struct replay_pass *ps,
		       const struct kmemtrace_event **ev, size_t n)
{
	struct replay_shard *sh;
	struct shard_block *b;
	size_t i;

	for (i = 0; i < n; i++) {
		sh = &ps->shards[pass_shard(ps, ev[i])];
		b = sh->cur;
		b->in[b->n].v = (uintptr_t)ev[i] | SHARD_SEL;
		if (++b->n == SHARD_BLOCK)
			shard_send(ps, sh);
	}
}

/*
 * The merging thread's part of a batch of events, in order: what the
 * filters select, @time; then the shards replay the events (and count
 * them).  With one job, the shard replays the batch now; with more, each
 * event, with the marks @time asked for before it, goes to the block of
 * its shard, and every mark to every shard.
 */
static void pass_batch(struct replay_pass *ps, const struct kmemtrace_event **ev,
		       size_t n)
{
	struct report *r = ps->r;
	const struct replay_list *time = ON(r, REPLAY_TIME);
	bool sharded = ps->threads, backing = ON(r, REPLAY_BACKING)->nr;
	const struct kmemtrace_event *e;
	unsigned int k, marks;
	struct shard_ev *in;
	size_t i;

	if (!r->events)
		r->first_ts = ev[0]->timestamp;
	r->events += n;
	r->last_ts = ev[n - 1]->timestamp;
	if (sharded && !time->nr && !ps->filtering) {
		pass_route(ps, ev, n);
		return;
	}
	for (i = 0; i < n; i++) {
		e = ev[i];
		in = &ps->in[i];
		in->v = (uintptr_t)e;
		if (!ps->filtering || pass_selected(ps, e, backing))
			in->v |= SHARD_SEL;
		if (!sharded)
			continue;
		marks = time->nr ? call_time(time, e) : 0;
		for (k = 0; marks && k < ps->nr; k++)
			shard_push(ps, &ps->shards[k],
				   (struct shard_ev){ in->v | SHARD_MARK }, marks);
		shard_push(ps, &ps->shards[pass_shard(ps, e)], *in, 0);
	}
	if (!sharded)
		shard_batch(&ps->shards[0], ps->in, n, NULL);
}

/* Replay every event of @m in the --time window, in order. */
static void account_events(struct replay_pass *ps, struct kmt_merge *m)
{
	const struct kmt_filter *f = &ps->r->p->filter;
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	bool end = false;
	size_t i, k, n;

	while (!end && (n = kmt_merge_batch(m, ev, KMT_MERGE_BATCH))) {
		for (i = k = 0; f->time && i < n; i++) {
			/* The rest is later still: kmt_merge_end() checks it. */
			if (ev[i]->timestamp > f->end) {
				end = true;
				break;
			}
			if (ev[i]->timestamp >= f->start)
				ev[k++] = ev[i];
		}
		if (f->time)
			n = k;
		if (n)
			pass_batch(ps, ev, n);
	}
}

/*
 * How many threads: one when a consumer of allocations cannot be sharded
 * (no @fork or @merge), or needs @time in its order (no @mark).
 */
static unsigned int pass_jobs(const struct report_params *p,
			      const struct replay_use *uses, size_t n)
{
	const struct replay_consumer *c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = uses[i].c;
		if ((c->needs & REPLAY_OBJ) &&
		    (!c->fork || !c->merge ||
		     ((c->needs & REPLAY_TIME) && !c->mark)))
			return 1;
	}
	return p->jobs ? p->jobs : 1;
}

/*
 * The last blocks to the threads, which end once every block is
 * replayed; the merging thread replays blocks too meanwhile.
 */
static void pass_stop(struct replay_pass *ps)
{
	struct replay_shard *sh;
	unsigned int k;

	pthread_mutex_lock(&ps->lock);
	for (k = 0; k < ps->nr; k++)
		if (ps->shards[k].cur->n)
			ps->shards[k].filled++;
	ps->done = true;
	pass_tick(&ps->work_gen);
	pthread_cond_broadcast(&ps->work);
	while ((sh = pass_pending(ps, NULL)))
		pass_replay_block(ps, sh);
	pthread_mutex_unlock(&ps->lock);
	for (k = 0; k < ps->nr_threads; k++)
		pthread_join(ps->thread[k], NULL);
	pthread_mutex_destroy(&ps->lock);
	pthread_cond_destroy(&ps->work);
	pthread_cond_destroy(&ps->room);
	pthread_cond_destroy(&ps->late_done);
}

/*
 * Add up what shard @sh of a sharded pass counted, by key: the call
 * sites, the origins, the allocations live (if
 * @live: a view or a consumer looks at them), with the run's indexes,
 * and each consumer's context into the one registered.  Then release
 * the shard.
 */
static void shard_merge(struct report *r, struct replay_shard *sh,
			const struct replay_use *uses, size_t nr_uses, bool live)
{
	uint32_t *site = xcalloc(sh->own_sites.nr + 1, sizeof(*site));
	uint32_t *origin = xcalloc(sh->own_og.nr + 1, sizeof(*origin));
	struct replay_remap map = { site, sh->own_sites.nr, origin };
	const struct origin *og;
	const struct live_obj *o;
	struct live_obj *d;
	size_t i, j = 0;

	for (i = 0; i < sh->own_sites.nr; i++)
		site[i] = site_index(&r->sites, sh->own_sites.sites[i].key);
	for (i = 0; i < sh->own_og.nr; i++) {
		og = &sh->own_og.origins[i];
		origin[i] = origin_add(&r->og, og->tag, og->stack);
	}
	for (i = 0; live && sh->own_live.nr && i < (size_t)1 << sh->own_live.bits;
	     i++) {
		o = &sh->own_live.slots[i];
		if (!o->family)
			continue;
		live_reserve(&r->live, 1);
		d = live_probe(&r->live, live_hash(o->family, o->ptr, r->live.bits),
			       o->family, o->ptr);
		*d = *o;
		d->site = site[o->site];
		d->origin = origin[o->origin];
		r->live.nr++;
	}
	for (i = 0; i < nr_uses; i++)
		if (j < sh->nr_uses && sh->uses[j].c == uses[i].c)
			uses[i].c->merge(uses[i].ctx, sh->uses[j++].ctx, &map);
	free(site);
	free(origin);
	live_free(&sh->own_live);
	site_table_free(&sh->own_sites);
	origin_table_free(&sh->own_og);
	free(sh->blocks);
}

/*
 * Set up the shards of @jobs threads and start them: with more than one,
 * @jobs shards, replayed by @jobs - 1 threads and, when it is ahead, by
 * the merging thread.  With one job, the one shard replays into the
 * run's own tables, in the merging thread.  @late, if set, is work
 * for pass_late(): with more than one job, the first other thread does
 * it before replaying.
 */
static int pass_start(struct replay_pass *ps, struct report *r,
		      const struct replay_use *uses, size_t nr_uses,
		      unsigned int jobs, int (*late)(void *arg), void *late_arg)
{
	struct replay_shard *sh;
	const char *delay;
	unsigned int k;
	int err;

	memset(ps, 0, sizeof(*ps));
	ps->r = r;
	ps->filtering = kmt_filter_selects_allocs(&r->p->filter);
	/* Frees matter to the other views, and to consumers of frees. */
	ps->summary_only = r->p->views == 1u << VIEW_SUMMARY &&
			   !ON(r, REPLAY_FREE)->nr && !ON(r, REPLAY_STRAY)->nr;
	ps->threads = jobs > 1;
	ps->nr = jobs;
	ps->spin = jobs <= kmt_cpus();
	ps->late = late;
	ps->late_arg = late_arg;
	ps->late_state = late ? LATE_PENDING : LATE_NONE;
	delay = getenv("KMEMTRACE_TEST_IDLE_DELAY_US");
	if (delay)
		ps->test_idle_delay_us = strtoul(delay, NULL, 10);
	/* Aligned, for the cache lines of struct replay_shard. */
	ps->shards = aligned_alloc(64, ps->nr * sizeof(*ps->shards));
	if (!ps->shards) {
		kmt_err("out of memory");
		exit(1);
	}
	memset(ps->shards, 0, ps->nr * sizeof(*ps->shards));
	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		sh->filtering = ps->filtering;
		sh->summary_only = ps->summary_only;
		sh->period = r->p->sample_period;
		shard_uses(sh, uses, nr_uses, ps->threads);
		if (!ps->threads) {
			sh->live = &r->live;
			sh->sites = &r->sites;
			sh->og = &r->og;
			return 0;
		}
		sh->live = &sh->own_live;
		sh->sites = &sh->own_sites;
		sh->og = &sh->own_og;
		/* Origin 0: none. */
		origin_add(sh->og, 0, 0);
		sh->blocks = xcalloc(SHARD_BLOCKS, sizeof(*sh->blocks));
		sh->cur = sh->blocks;
	}
	pthread_mutex_init(&ps->lock, NULL);
	pthread_cond_init(&ps->work, NULL);
	pthread_cond_init(&ps->room, NULL);
	pthread_cond_init(&ps->late_done, NULL);
	for (k = 0; k + 1 < jobs; k++) {
		err = pthread_create(&ps->thread[k], NULL, pass_thread, ps);
		if (err) {
			kmt_err("cannot start thread %u of the pass: %s", k + 1,
				strerror(err));
			return 1;
		}
		ps->nr_threads++;
	}
	return 0;
}

/* Add up what shard @sh counted into @r. */
static void shard_counts(struct report *r, const struct replay_shard *sh)
{
	unsigned int kind, type;

	for (kind = 0; kind < ARRAY_SIZE(sh->count); kind++)
		for (type = 0; type < ARRAY_SIZE(sh->count[0]); type++)
			r->count[kind][type] += sh->count[kind][type];
	r->other_period += sh->other_period;
	r->backing_allocs += sh->backing_allocs;
	r->overflow |= sh->overflow |
		       add_u64_sat(&r->backing_bytes, sh->backing_bytes);
	r->backing_frees += sh->backing_frees;
	r->unpaired += sh->unpaired;
	r->selected += sh->selected;
	r->double_allocs += sh->double_allocs;
	r->split_unknown += sh->split_unknown;
}

/* Wait for the shards, and add up what they counted. */
static void pass_end(struct replay_pass *ps, const struct replay_use *uses,
		     size_t nr_uses)
{
	struct report *r = ps->r;
	const struct replay_list *end = ON(r, REPLAY_END);
	bool live = r->p->views & (1u << VIEW_LIVE);
	struct replay_shard *sh;
	size_t nr_live = 0;
	unsigned int k;

	for (k = 0; k < end->nr; k++)
		live |= !!end->u[k]->c->live;
	if (ps->threads)
		pass_stop(ps);
	for (k = 0; ps->threads && k < ps->nr; k++)
		nr_live += ps->shards[k].own_live.nr;
	/* The live table the views and consumers look at grows once. */
	if (live && nr_live)
		live_reserve(&r->live, nr_live);
	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		shard_live_sums(sh);
		if (ps->threads)
			shard_merge(r, sh, uses, nr_uses, live);
		shard_counts(r, sh);
		r->live_selected += sh->live_selected;
		r->overflow |= add_u64_sat(&r->live_selected_bytes,
					   sh->live_selected_bytes);
	}
	site_table_free(&ps->sel_sites);
	kmt_map_free(&ps->split_map);
	kmt_map_free(&ps->memo.pids);
	kmt_map_free(&ps->memo.modules);
	while (ps->nr_kept)
		free(ps->kept[--ps->nr_kept].buf);
	free(ps->kept);
	free(ps->shards);
}

/* The events of each kind, of all types. */
static void account_kinds(struct report *r)
{
	unsigned int kind, type;

	for (kind = KMEMTRACE_KIND_ALLOC; kind <= KMT_KIND_MAX; kind++)
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			r->count[kind][0] += r->count[kind][type];
}

const char *report_cache_name(const struct report *r, uint64_t id, char *buf,
			      size_t len)
{
	const char *name = kmt_caches_name(r->caches_file, id);

	if (name)
		return name;
	snprintf(buf, len, "cache#%llu", (unsigned long long)id);
	return buf;
}

static void report_free(struct report *r)
{
	live_free(&r->live);
	site_table_free(&r->sites);
	kmt_symcache_free(&r->names);
	origin_table_free(&r->og);
}

/*
 * The side files of a run: its symbols, and the tags, stacks, caches and
 * task names that its views or filters need.  Return 1 when the symbols
 * cannot be read (reported).
 */
static int load_side_files(struct replay_run *run, const struct report_params *p)
{
	if (kmt_symtab_setup(&run->syms, p->dir, p->symfile, p->vmlinux))
		return 1;
	/* Only the views that name tags and stacks need their files. */
	kmt_tags_load(&run->tags, p->filter.modules.nr ||
		      (p->views & (1u << VIEW_LIVE | 1u << VIEW_ALLOCINFO)) ?
		      run->t.dir : NULL);
	kmt_stacks_load(&run->stacks, p->views & (1u << VIEW_LIVE | 1u << VIEW_STACKS) ?
			run->t.dir : NULL);
	/* The filters need these during the pass; problems come after. */
	kmt_caches_load(&run->caches, p->filter.caches.nr ? run->t.dir : NULL);
	/* Task names, for --comm and the live view. */
	if ((p->filter.comms.nr || (p->views & (1u << VIEW_LIVE))) &&
	    !kmt_comms_load(&run->comms, run->t.dir, false) &&
	    !run->comms.nr && p->filter.comms.nr)
		kmt_err("%s/comms names no task, --comm selects nothing",
			run->t.dir);
	return 0;
}

/* load_side_files() of the run, as work for pass_start(). */
static int load_side_files_late(void *arg)
{
	struct replay_run *run = arg;

	return load_side_files(run, run->r.p);
}

int replay_run(struct replay_run *run, struct report_params *p,
	       const struct replay_use *uses, size_t nr_uses)
{
	struct report *r = &run->r;
	struct replay_pass ps;
	struct kmt_merge m;
	bool late;

	memset(run, 0, sizeof(*run));
	if (add_uses(r, uses, nr_uses))
		return 1;
	if (kmt_trace_load_dir(&run->t, p->dir))
		return 1;
	/*
	 * Side files the filters do not need are not needed during the pass:
	 * with one job, they are read after the events; with more, by another
	 * thread while the merging thread merges (pass_late()).  Their
	 * messages come as early, before the problems of the streams.
	 */
	late = !p->filter.sites.nr && !p->filter.comms.nr &&
	       !p->filter.modules.nr && !p->filter.caches.nr;
	if (!late && load_side_files(run, p)) {
		kmt_symtab_free(&run->syms);
		kmt_trace_free(&run->t);
		return 1;
	}
	run->st = xcalloc(run->t.nr, sizeof(*run->st));
	r->p = p;
	/* Origin 0 and tag index 0: none. */
	origin_add(&r->og, 0, 0);
	r->tags = &run->tags;
	r->stacks = &run->stacks;
	kmt_symcache_init(&r->names, &run->syms);
	r->caches_file = &run->caches;
	r->comms = &run->comms;

	if (pass_start(&ps, r, uses, nr_uses, pass_jobs(p, uses, nr_uses),
		       late ? load_side_files_late : NULL, run)) {
		pass_end(&ps, uses, nr_uses);
		replay_run_free(run);
		return 1;
	}
	kmt_merge_start(&m, &run->t, run->st);
	if (ps.threads) {
		/* The shards read the events where the merge read them. */
		m.swap = pass_swap;
		m.swap_arg = &ps;
		/*
		 * And read the streams ahead when they have no block to
		 * replay: the copy from the page cache, a third of report's
		 * time on one core, is otherwise the merging thread's alone.
		 */
		kmt_merge_ahead_start(&m);
		pass_idle_set(&ps, pass_read_ahead, &m);
	}
	account_events(&ps, &m);
	if (ps.threads) {
		pass_idle_set(&ps, NULL, NULL);
		kmt_merge_ahead_stop(&m);
	}
	if (late && pass_late(&ps)) {
		kmt_merge_drop(&m);
		pass_end(&ps, uses, nr_uses);
		replay_run_free(run);
		return 1;
	}
	run->errors = kmt_merge_end(&m);
	pass_end(&ps, uses, nr_uses);
	account_kinds(r);
	call_end(run);
	if (!p->filter.caches.nr)
		kmt_caches_load(&run->caches, run->t.dir);
	return 0;
}

void replay_run_free(struct replay_run *run)
{
	report_free(&run->r);
	kmt_comms_free(&run->comms);
	kmt_caches_free(&run->caches);
	kmt_tags_free(&run->tags);
	kmt_stacks_free(&run->stacks);
	free(run->st);
	kmt_symtab_free(&run->syms);
	kmt_trace_free(&run->t);
}

bool replay_mixed_periods(const struct replay_run *run)
{
	const struct report *r = &run->r;

	if (!r->other_period)
		return false;
	kmt_err("%s: %llu events have another sample_period than the trace's first event (%u): events of different recordings are not added up (see kmemtrace check)",
		run->t.dir, (unsigned long long)r->other_period,
		r->p->sample_period);
	return true;
}

bool replay_no_valid_event(const struct replay_run *run)
{
	size_t i, events = 0;

	for (i = 0; i < run->t.nr; i++)
		events += run->st[i].events;
	if (events || !run->errors)
		return false;
	kmt_err("%s: no valid event, %zu problems (see kmemtrace check)",
		run->t.dir, run->errors);
	return true;
}

