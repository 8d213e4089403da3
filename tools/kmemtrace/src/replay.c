// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace replay - the engine every view and exporter plugs into
 *
 * One pass over the events, merged in time order, replays every
 * allocation and free: a hash table holds the allocations still live,
 * tables of sums (sitetab.h) add up what happened per call site and per
 * cache, for report's views.
 * Consumers (struct replay_consumer, replay.h) see the allocations,
 * frees, resizes, stray frees, backing events and every event's time as
 * they are replayed, and the allocations still live at the end, each
 * only through the callbacks it asked for, never another's state: plot,
 * pprof, and the consumers of report's other views (lifetimes,
 * stackstat, keysums, pagesums, mismatches, allocinfo).
 *
 * The thread that merges the streams does what depends on the order of
 * all the events: the counts, the call sites and origins in the order
 * first seen, the filters, @time.  What happens to a pointer depends on
 * its own events only: a shard (struct replay_shard) replays those, with
 * its live table, its sums and its consumers' contexts.  With one job,
 * the one shard replays each batch in the merging thread; with more, the
 * events are sharded by a hash of their pointer, copied a block at a
 * time to each shard's thread, and the shards' results are added up by
 * key at the end.  See Documentation/kmemtrace.rst.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "replay.h"
#include "utils.h"

/* ------------------------------------------------------------- shards */

/* The callbacks a shard calls: those of the allocations. */
#define REPLAY_OBJ	(REPLAY_ALLOC | REPLAY_FREE | REPLAY_RESIZE | \
			 REPLAY_STRAY | REPLAY_BACKING)

/* What the merging thread tells a shard of an event, or a mark. */
struct shard_ev {
	const struct kmemtrace_event *ev;
	uint32_t si;		/* an alloc: its site index */
	uint32_t origin;	/* an alloc: its origin */
	uint16_t sel;		/* the filters select it */
	uint16_t marks;		/* a mark, not an event: bit per mark user */
};

/* Events a block carries to a shard's thread, and blocks in flight. */
#define SHARD_BLOCK	1024
#define SHARD_BLOCKS	4

struct shard_block {
	size_t n;
	struct shard_ev in[SHARD_BLOCK];
	struct kmemtrace_event ev[SHARD_BLOCK];
};

/*
 * One shard of the pass: the events of the pointers it has.  With one
 * job, its tables are the run's own; with more, its own, added up into
 * the run's at the end (shards_merge()).
 */
struct replay_shard {
	bool filtering;
	bool summary_only;
	bool overflow;
	uint64_t selected;
	uint64_t double_allocs;
	struct live_table *live;
	struct site_table *sites;	/* sums by the run's site index */
	struct site_table *caches;
	struct site_table *unknown;	/* frees of unknown memory, by call site */
	struct live_table own_live;
	struct site_table own_sites;	/* indexes only, no keys */
	struct site_table own_caches;
	struct site_table own_unknown;
	struct replay_use uses[REPLAY_MAX_CONSUMERS];
	size_t nr_uses;
	struct replay_list on[7];	/* per enum replay_need bit */
	const struct replay_use *marks[REPLAY_MAX_CONSUMERS];
	/* The blocks from the merging thread, with more than one job. */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t more;		/* a block was filled, or the end */
	pthread_cond_t room;		/* a block was replayed */
	struct shard_block *blocks;
	size_t filled;
	size_t replayed;
	bool done;
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
		       const struct live_obj *o)
{
	const struct replay_list *l = ON(sh, REPLAY_STRAY);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->stray(l->u[i]->ctx, ev, o);
}

static void call_backing(struct replay_shard *sh, const struct kmemtrace_event *ev,
			 bool selected)
{
	const struct replay_list *l = ON(sh, REPLAY_BACKING);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->backing(l->u[i]->ctx, ev, selected);
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

/* The marks of entry @in, on the shard's contexts of the consumers. */
static void call_marks(struct replay_shard *sh, const struct shard_ev *in)
{
	const struct replay_use *u;
	unsigned int i;

	for (i = 0; i < REPLAY_MAX_CONSUMERS; i++) {
		u = sh->marks[i];
		if ((in->marks & (1u << i)) && u)
			u->c->mark(u->ctx, in->ev);
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

/* The end of the pass: the live allocations, then the end. */
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
		if (!o->selected)
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

static bool pid_selected(struct report *r, uint32_t pid)
{
	const struct name_list *l = &r->p->filter.comms;
	uint32_t sel;
	size_t i;

	if (kmt_map_find(&r->pid_selected, pid, &sel))
		return sel;
	sel = 0;
	for (i = 0; i < l->nr && !sel; i++)
		sel = kmt_comms_match(r->comms, pid, l->names[i]);
	kmt_map_insert(&r->pid_selected, pid, sel, NULL);
	return sel;
}

/* Whether the codetag @tag is of a module of --module. */
static bool module_selected(struct report *r, uint64_t tag)
{
	const struct name_list *l = &r->p->filter.modules;
	const struct kmt_tag *t;
	const char *name;
	uint32_t sel;
	size_t i;

	if (!tag)
		return false;
	if (kmt_map_find(&r->module_selected, tag, &sel))
		return sel;
	sel = 0;
	t = kmt_tags_find(r->tags, tag);
	name = !t ? NULL : t->module ? t->module : "vmlinux";
	for (i = 0; i < l->nr && name && !sel; i++)
		sel = !strcmp(name, l->names[i]);
	kmt_map_insert(&r->module_selected, tag, sel, NULL);
	return sel;
}

/* Whether the filters select an allocation (or a free without one). */
static bool event_selected(struct report *r, const struct kmemtrace_event *ev,
			   struct site *site)
{
	const struct kmt_filter *f = &r->p->filter;

	if (f->types && !(f->types & (1u << ev->type)))
		return false;
	if (f->cpus.nr && !kmt_u64_set_has(&f->cpus, ev->cpu))
		return false;
	if (f->pids.nr && !kmt_u64_set_has(&f->pids, ev->pid))
		return false;
	if (f->comms.nr && !pid_selected(r, ev->pid))
		return false;
	if (f->caches.nr && (ev->type != KMEMTRACE_TYPE_CACHE ||
			     !cache_selected(r, ev->cache_id)))
		return false;
	if (f->sites.nr && !site_selected(r, site))
		return false;
	if (f->modules.nr && !module_selected(r, ev->tag))
		return false;
	return true;
}

/* --------------------------------------------------------------- origins */

static uint32_t tag_index(struct report *r, uint64_t tag)
{
	uint32_t i;
	bool added;

	if (kmt_map_find(&r->tag_map, tag, &i))
		return i;
	i = kmt_map_insert(&r->tag_map, tag, r->nr_tag_addrs, &added);
	r->tag_addrs = kmt_grow(r->tag_addrs, r->nr_tag_addrs, &r->size_tag_addrs,
				sizeof(*r->tag_addrs), 256);
	r->tag_addrs[r->nr_tag_addrs++] = tag;
	return i;
}

static uint32_t origin_add(struct report *r, uint64_t tag, uint32_t stack)
{
	uint32_t ti = tag_index(r, tag), i;
	uint64_t key = (uint64_t)ti << 32 | stack;
	struct origin *o;
	bool added;

	if (kmt_map_find(&r->origin_map, key, &i))
		return i;
	i = kmt_map_insert(&r->origin_map, key, r->nr_origins, &added);
	r->origins = kmt_grow(r->origins, r->nr_origins, &r->size_origins,
			      sizeof(*r->origins), 256);
	o = &r->origins[r->nr_origins++];
	o->tag = tag;
	o->stack = stack;
	o->tag_index = ti;
	return i;
}

/* The origin of an alloc: 0, without a tag and a stack, needs no lookup. */
static inline uint32_t event_origin(struct report *r,
				    const struct kmemtrace_event *ev)
{
	if (!(ev->tag | ev->stack_id))
		return 0;
	return origin_add(r, ev->tag, ev->stack_id);
}

/* -------------------------------------------------------- a shard's pass */

/* Room for the sums of site index @si, in a shard's own table. */
static void shard_site_grow(struct site_table *tab, uint32_t si)
{
	while (tab->nr <= si) {
		tab->sites = kmt_grow(tab->sites, tab->nr, &tab->size,
				      sizeof(*tab->sites), 256);
		memset(&tab->sites[tab->nr++], 0, sizeof(*tab->sites));
	}
}

/* An allocation: @slot is the home slot of its memory. */
static void account_alloc(struct replay_shard *sh, const struct shard_ev *in,
			  size_t slot)
{
	const struct kmemtrace_event *ev = in->ev;
	unsigned int family = pair_type(ev->type);
	struct site *site, *cache;
	struct live_obj *o;

	o = live_probe(sh->live, slot, family, ev->ptr);
	if (o->family) {
		/* Memory allocated twice: its free was not seen. */
		sh->double_allocs++;
		if (ON(sh, REPLAY_RESIZE)->nr && o->selected)
			call_resize(sh, NULL, o, 0);
	} else {
		o->ptr = ev->ptr;
		o->family = family;
		sh->live->nr++;
	}
	o->ts = ev->timestamp;
	o->bytes = ev->bytes_alloc;
	o->site = in->si;
	o->cpu = ev->cpu;
	o->pid = ev->pid;
	o->cache_id = ev->cache_id;
	o->origin = in->origin;
	o->type = ev->type;
	o->selected = in->sel;
	o->uncharged = !!(ev->flags & KMEMTRACE_FLAG_UNCHARGED);
	if (!in->sel)
		return;
	if (ON(sh, REPLAY_ALLOC)->nr)
		call_alloc(sh, ev, o);
	sh->selected++;
	if (in->si >= sh->sites->nr)
		shard_site_grow(sh->sites, in->si);
	site = &sh->sites->sites[in->si];
	site->allocs++;
	sh->overflow |= add_u64_sat(&site->req, ev->bytes_req);
	sh->overflow |= add_u64_sat(&site->alloc, ev->bytes_alloc);
	if (ev->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(sh->caches, ev->cache_id);
		cache->allocs++;
		sh->overflow |= add_u64_sat(&cache->req, ev->bytes_req);
		sh->overflow |= add_u64_sat(&cache->alloc, ev->bytes_alloc);
	}
}

/*
 * A free of memory not live in its family: memory allocated before the
 * trace, or memory of another API (a vmalloc() freed by kfree(), ...),
 * which is reported and stays live, as it was not freed.
 */
static void account_unknown_free(struct replay_shard *sh,
				 const struct shard_ev *in)
{
	static const unsigned int families[] = {
		KMEMTRACE_TYPE_KMALLOC, KMEMTRACE_TYPE_PAGES,
		KMEMTRACE_TYPE_PERCPU, KMEMTRACE_TYPE_VMALLOC,
	};
	const struct kmemtrace_event *ev = in->ev;
	struct live_obj *o;
	struct site *site;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (families[i] == pair_type(ev->type))
			continue;
		o = live_find(sh->live, families[i], ev->ptr);
		if (o) {
			if (o->selected)
				sh->sites->sites[o->site].mismatched++;
			if (ON(sh, REPLAY_STRAY)->nr)
				call_stray(sh, ev, o->selected ? o : NULL);
			return;
		}
	}
	if (ON(sh, REPLAY_STRAY)->nr)
		call_stray(sh, ev, NULL);
	site = site_get(sh->unknown, ev->call_site);
	if (sh->filtering && !in->sel)
		return;
	site->unknown++;
	site->unknown_types |= 1u << ev->type;
}

/* What a free of a selected allocation @o adds up. */
static void account_free_of(struct replay_shard *sh,
			    const struct kmemtrace_event *ev,
			    const struct live_obj *o)
{
	struct site *site = &sh->sites->sites[o->site], *cache = NULL;
	uint64_t life = ev->timestamp - o->ts;

	site->frees++;
	sh->overflow |= add_u64_sat(&site->life, life);
	if (ev->cpu != o->cpu)
		site->xcpu++;
	if (ON(sh, REPLAY_FREE)->nr)
		call_free(sh, ev, o, life);
	if (o->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(sh->caches, o->cache_id);
		cache->frees++;
		sh->overflow |= add_u64_sat(&cache->life, life);
		if (ev->cpu != o->cpu)
			cache->xcpu++;
	}
	if (replay_free_mismatched(ev, o)) {
		sh->sites->sites[o->site].mismatched++;
		if (cache)
			cache->mismatched++;
	}
}

/* A free: @slot is the home slot of its memory. */
static void account_free(struct replay_shard *sh, const struct shard_ev *in,
			 size_t slot)
{
	const struct kmemtrace_event *ev = in->ev;
	struct live_obj *o;

	o = live_probe(sh->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (!sh->summary_only)
			account_unknown_free(sh, in);
		return;
	}
	/* The summary does not look at frees, nor at their allocation. */
	if (!sh->summary_only && o->selected)
		account_free_of(sh, ev, o);
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
			call_stray(sh, ev, NULL);
		return;
	}
	if (ON(sh, REPLAY_RESIZE)->nr && o->selected)
		call_resize(sh, ev, o, ev->bytes_alloc);
	o->bytes = ev->bytes_alloc;
}

/*
 * Replay a batch of the shard's events, in order: an alloc makes its
 * memory (type and pointer) live with its size, a realloc of live
 * memory changes the size, a free ends it.  Memory live at the end is
 * still allocated.  Memory allocated before the trace started is not
 * counted, even when a realloc shows it.  Backing store events only go
 * to their consumers, unpaired frees skipped.
 *
 * Events come in faster than the tables answer, as memory is freed in
 * another order than it was allocated and call sites come in any order:
 * the slots and the sites of a batch are looked up first, so that the
 * CPU fetches them all at once, then the events are replayed, finding
 * what they need in the CPU caches.
 */
static void shard_batch(struct replay_shard *sh, const struct shard_ev *in,
			size_t n)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	const struct replay_list *time = ON(sh, REPLAY_TIME);
	size_t slot[KMT_MERGE_BATCH], mask;
	const struct kmemtrace_event *e;
	struct live_obj *slots;
	size_t i;

	/* The slots stay where they are during the batch. */
	live_reserve(sh->live, n);
	slots = sh->live->slots;
	mask = ((size_t)1 << sh->live->bits) - 1;
	for (i = 0; i < n; i++) {
		e = in[i].ev;
		slot[i] = live_hash(pair_type(e->type), e->ptr, sh->live->bits);
		/* A removal looks at the next slot too. */
		__builtin_prefetch(&slots[slot[i]], 1);
		__builtin_prefetch((char *)&slots[slot[i]] + 63, 1);
		__builtin_prefetch(&slots[(slot[i] + 1) & mask].pad, 1);
		if (e->kind == KMEMTRACE_KIND_ALLOC && in[i].si < sh->sites->nr)
			__builtin_prefetch(&sh->sites->sites[in[i].si], 1);
	}
	for (i = 0; i < n; i++) {
		e = in[i].ev;
		if (in[i].marks) {
			call_marks(sh, &in[i]);
			continue;
		}
		if (time->nr)
			call_time(time, e);
		if (e->flags & special) {
			if (ON(sh, REPLAY_BACKING)->nr)
				call_backing(sh, e, in[i].sel);
			continue;
		}
		if (e->kind == KMEMTRACE_KIND_ALLOC)
			account_alloc(sh, &in[i], slot[i]);
		else if (e->kind == KMEMTRACE_KIND_FREE)
			account_free(sh, &in[i], slot[i]);
		else
			account_realloc(sh, e, slot[i]);
	}
}

/* A shard's thread: replay the blocks, in order, until the end. */
static void *shard_thread(void *arg)
{
	struct replay_shard *sh = arg;
	struct shard_block *b;
	size_t i, n;

	for (;;) {
		pthread_mutex_lock(&sh->lock);
		while (sh->replayed == sh->filled && !sh->done)
			pthread_cond_wait(&sh->more, &sh->lock);
		if (sh->replayed == sh->filled) {
			pthread_mutex_unlock(&sh->lock);
			return NULL;
		}
		b = &sh->blocks[sh->replayed % SHARD_BLOCKS];
		pthread_mutex_unlock(&sh->lock);
		for (i = 0; i < b->n; i += n) {
			n = b->n - i < KMT_MERGE_BATCH ? b->n - i : KMT_MERGE_BATCH;
			shard_batch(sh, b->in + i, n);
		}
		pthread_mutex_lock(&sh->lock);
		sh->replayed++;
		pthread_cond_signal(&sh->room);
		pthread_mutex_unlock(&sh->lock);
	}
}

/* Hand the block being filled to the shard's thread; wait for room. */
static void shard_send(struct replay_shard *sh)
{
	pthread_mutex_lock(&sh->lock);
	sh->filled++;
	pthread_cond_signal(&sh->more);
	while (sh->filled - sh->replayed == SHARD_BLOCKS)
		pthread_cond_wait(&sh->room, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	sh->blocks[sh->filled % SHARD_BLOCKS].n = 0;
}

/* Copy an entry, and its event, to the block a shard is given next. */
static void shard_push(struct replay_shard *sh, const struct shard_ev *in)
{
	struct shard_block *b = &sh->blocks[sh->filled % SHARD_BLOCKS];
	size_t n = b->n;

	b->ev[n] = *in->ev;
	b->in[n] = *in;
	b->in[n].ev = &b->ev[n];
	if (++b->n == SHARD_BLOCK)
		shard_send(sh);
}

/* ----------------------------------------------------------- the pass */

/*
 * The pass: the merging thread's part, and the shards.  @free_sel holds
 * whether the filters select the call sites of frees, apart from the
 * call sites of the run, which only the shards add them to.
 */
struct replay_pass {
	struct report *r;
	struct replay_shard *shards;
	unsigned int nr;
	struct site_table free_sel;
	struct shard_ev in[KMT_MERGE_BATCH];
};

/*
 * The shard of the events of a pointer, whatever their family: a stray
 * free finds another family's allocation of its pointer in its shard.
 * Other bits of the pointer than those of live_hash() pick it.
 */
static inline unsigned int shard_of(uint64_t ptr, unsigned int nr)
{
	return (uint32_t)((ptr * 0x9e3779b97f4a7c15ULL) >> 16) % nr;
}

/* Backing store events are only counted, unpaired frees skipped. */
static void account_backing(struct report *r, const struct kmemtrace_event *ev)
{
	if (kmt_event_is_unpaired(ev)) {
		r->unpaired++;
	} else if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		r->backing_allocs++;
		r->overflow |= add_u64_sat(&r->backing_bytes, ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		r->backing_frees++;
	}
}

/*
 * The merging thread's part of a batch of events, in order: the counts,
 * the call sites of the allocs (first, as the shards' pass fetches their
 * sums), their origins, what the filters select, @time; then the shards
 * replay the events.  With one job, the shard replays the batch now;
 * with more, each event, with the marks @time asked for before it, goes
 * to the block of its shard, and every mark to every shard.
 */
static void pass_batch(struct replay_pass *ps, const struct kmemtrace_event **ev,
		       size_t n)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	struct report *r = ps->r;
	const struct replay_list *time = ON(r, REPLAY_TIME);
	bool sharded = ps->nr > 1, backing = ON(r, REPLAY_BACKING)->nr;
	uint32_t si[KMT_MERGE_BATCH];
	const struct kmemtrace_event *e;
	struct shard_ev *in, mark;
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		e = ev[i];
		if (e->kind != KMEMTRACE_KIND_ALLOC || (e->flags & special))
			continue;
		if (!kmt_map_find(&r->sites.map, e->call_site, &si[i]))
			si[i] = site_index(&r->sites, e->call_site);
		__builtin_prefetch(&r->sites.sites[si[i]], 1);
	}
	if (!r->events)
		r->first_ts = ev[0]->timestamp;
	r->events += n;
	r->last_ts = ev[n - 1]->timestamp;
	for (i = 0; i < n; i++) {
		e = ev[i];
		in = &ps->in[i];
		memset(in, 0, sizeof(*in));
		in->ev = e;
		if (sharded && time->nr) {
			mark = *in;
			mark.marks = call_time(time, e);
			for (k = 0; mark.marks && k < ps->nr; k++)
				shard_push(&ps->shards[k], &mark);
		}
		r->count[e->kind][e->type]++;
		if (e->flags & special) {
			account_backing(r, e);
			if (backing && e->kind == KMEMTRACE_KIND_ALLOC &&
			    !kmt_event_is_unpaired(e))
				in->sel = !r->filtering ||
					  event_selected(r, e, site_get(&r->sites,
									e->call_site));
		} else if (e->kind == KMEMTRACE_KIND_ALLOC) {
			in->si = si[i];
			in->origin = event_origin(r, e);
			in->sel = !r->filtering ||
				  event_selected(r, e, &r->sites.sites[si[i]]);
		} else if (e->kind == KMEMTRACE_KIND_FREE && r->filtering &&
			   !r->summary_only) {
			in->sel = event_selected(r, e, site_get(&ps->free_sel,
								e->call_site));
		}
		if (sharded)
			shard_push(&ps->shards[shard_of(e->ptr, ps->nr)], in);
	}
	if (!sharded)
		shard_batch(&ps->shards[0], ps->in, n);
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
 * How many shards: one when a consumer of allocations cannot be sharded
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

/* Let the thread of shard @sh end, once its blocks are replayed. */
static void shard_stop(struct replay_shard *sh)
{
	pthread_mutex_lock(&sh->lock);
	if (sh->blocks[sh->filled % SHARD_BLOCKS].n)
		sh->filled++;
	sh->done = true;
	pthread_cond_signal(&sh->more);
	pthread_mutex_unlock(&sh->lock);
}

/* Add the sums @s of a shard to those of the run, @d. */
static void sums_add(struct site *d, const struct site *s, bool *overflow)
{
	d->allocs += s->allocs;
	*overflow |= add_u64_sat(&d->req, s->req);
	*overflow |= add_u64_sat(&d->alloc, s->alloc);
	d->frees += s->frees;
	d->xcpu += s->xcpu;
	*overflow |= add_u64_sat(&d->life, s->life);
	d->mismatched += s->mismatched;
	d->unknown += s->unknown;
	d->unknown_types |= s->unknown_types;
}

/*
 * Add up what shard @sh of a sharded pass counted, by key: the sums of
 * the call sites (by index) and caches, the allocations live, and each
 * consumer's context into the one registered.  Then release the shard.
 */
static void shard_merge(struct report *r, struct replay_shard *sh,
			const struct replay_use *uses, size_t nr_uses)
{
	const struct live_obj *o;
	struct live_obj *d;
	size_t i, j = 0;

	for (i = 0; i < sh->own_sites.nr; i++)
		sums_add(&r->sites.sites[i], &sh->own_sites.sites[i], &r->overflow);
	for (i = 0; i < sh->own_unknown.nr; i++)
		sums_add(site_get(&r->sites, sh->own_unknown.sites[i].key),
			 &sh->own_unknown.sites[i], &r->overflow);
	for (i = 0; i < sh->own_caches.nr; i++)
		sums_add(site_get(&r->caches, sh->own_caches.sites[i].key),
			 &sh->own_caches.sites[i], &r->overflow);
	for (i = 0; sh->own_live.nr && i < (size_t)1 << sh->own_live.bits; i++) {
		o = &sh->own_live.slots[i];
		if (!o->family)
			continue;
		live_reserve(&r->live, 1);
		d = live_probe(&r->live, live_hash(o->family, o->ptr, r->live.bits),
			       o->family, o->ptr);
		*d = *o;
		r->live.nr++;
	}
	for (i = 0; i < nr_uses; i++)
		if (j < sh->nr_uses && sh->uses[j].c == uses[i].c)
			uses[i].c->merge(uses[i].ctx, sh->uses[j++].ctx);
	live_free(&sh->own_live);
	site_table_free(&sh->own_sites);
	site_table_free(&sh->own_caches);
	site_table_free(&sh->own_unknown);
	free(sh->blocks);
	pthread_mutex_destroy(&sh->lock);
	pthread_cond_destroy(&sh->more);
	pthread_cond_destroy(&sh->room);
}

/*
 * Set up the shards of @jobs and start their threads; with one job, the
 * shard replays into the run's own tables, in the merging thread.
 */
static int pass_start(struct replay_pass *ps, struct report *r,
		      const struct replay_use *uses, size_t nr_uses,
		      unsigned int jobs)
{
	struct replay_shard *sh;
	unsigned int k;
	int err;

	memset(ps, 0, sizeof(*ps));
	ps->r = r;
	ps->nr = jobs;
	ps->shards = xcalloc(jobs, sizeof(*ps->shards));
	for (k = 0; k < jobs; k++) {
		sh = &ps->shards[k];
		sh->filtering = r->filtering;
		sh->summary_only = r->summary_only;
		shard_uses(sh, uses, nr_uses, jobs > 1);
		if (jobs == 1) {
			sh->live = &r->live;
			sh->sites = &r->sites;
			sh->caches = &r->caches;
			sh->unknown = &r->sites;
			return 0;
		}
		sh->live = &sh->own_live;
		sh->sites = &sh->own_sites;
		sh->caches = &sh->own_caches;
		sh->unknown = &sh->own_unknown;
		sh->blocks = xcalloc(SHARD_BLOCKS, sizeof(*sh->blocks));
		pthread_mutex_init(&sh->lock, NULL);
		pthread_cond_init(&sh->more, NULL);
		pthread_cond_init(&sh->room, NULL);
		err = pthread_create(&sh->thread, NULL, shard_thread, sh);
		if (err) {
			kmt_err("cannot start the thread of shard %u: %s", k,
				strerror(err));
			ps->nr = k + 1;
			return 1;
		}
		sh->started = true;
	}
	return 0;
}

/* Wait for the shards, and add up what they counted. */
static void pass_end(struct replay_pass *ps, const struct replay_use *uses,
		     size_t nr_uses)
{
	struct report *r = ps->r;
	struct replay_shard *sh;
	size_t live = 0;
	unsigned int k;

	for (k = 0; ps->nr > 1 && k < ps->nr; k++)
		if (ps->shards[k].started)
			shard_stop(&ps->shards[k]);
	for (k = 0; ps->nr > 1 && k < ps->nr; k++) {
		if (ps->shards[k].started)
			pthread_join(ps->shards[k].thread, NULL);
		live += ps->shards[k].own_live.nr;
	}
	/* The first shard's live table becomes the run's, grown once. */
	if (ps->nr > 1) {
		r->live = ps->shards[0].own_live;
		memset(&ps->shards[0].own_live, 0, sizeof(r->live));
		live_reserve(&r->live, live - r->live.nr);
	}
	for (k = 0; k < ps->nr; k++) {
		sh = &ps->shards[k];
		if (ps->nr > 1)
			shard_merge(r, sh, uses, nr_uses);
		r->selected += sh->selected;
		r->double_allocs += sh->double_allocs;
		r->overflow |= sh->overflow;
	}
	site_table_free(&ps->free_sel);
	free(ps->shards);
}

/*
 * Fill in what is live at the end, in all, per site and per cache, and
 * the events of each kind, of all types.
 */
static void account_live(struct report *r)
{
	unsigned int kind, type;
	struct live_obj *o;
	struct site *s;
	size_t i;

	for (kind = KMEMTRACE_KIND_ALLOC; kind <= KMEMTRACE_KIND_REALLOC; kind++)
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			r->count[kind][0] += r->count[kind][type];
	for (i = 0; r->live.nr && i < (size_t)1 << r->live.bits; i++) {
		o = &r->live.slots[i];
		if (!o->family || !o->selected)
			continue;
		r->live_selected++;
		add_u64_sat(&r->live_selected_bytes, o->bytes);
		s = &r->sites.sites[o->site];
		s->live++;
		r->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
		if (o->type != KMEMTRACE_TYPE_CACHE)
			continue;
		s = site_get(&r->caches, o->cache_id);
		s->live++;
		r->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
	}
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
	site_table_free(&r->caches);
	kmt_symcache_free(&r->names);
	kmt_map_free(&r->pid_selected);
	kmt_map_free(&r->module_selected);
	free(r->origins);
	kmt_map_free(&r->origin_map);
	free(r->tag_addrs);
	kmt_map_free(&r->tag_map);
}

int replay_run(struct replay_run *run, struct report_params *p,
	       const struct replay_use *uses, size_t nr_uses)
{
	struct report *r = &run->r;
	struct replay_pass ps;
	struct kmt_merge m;

	memset(run, 0, sizeof(*run));
	if (add_uses(r, uses, nr_uses))
		return 1;
	if (kmt_trace_load_dir(&run->t, p->dir))
		return 1;
	if (kmt_symtab_setup(&run->syms, p->dir, p->symfile, p->vmlinux)) {
		kmt_trace_free(&run->t);
		return 1;
	}
	run->st = xcalloc(run->t.nr, sizeof(*run->st));
	r->p = p;
	r->filtering = kmt_filter_selects_allocs(&p->filter);
	/* Origin 0 and tag index 0: none. */
	origin_add(r, 0, 0);
	/* Only the views that name tags and stacks need their files. */
	kmt_tags_load(&run->tags, p->filter.modules.nr ||
		      (p->views & (1u << VIEW_LIVE | 1u << VIEW_ALLOCINFO)) ?
		      run->t.dir : NULL);
	r->tags = &run->tags;
	kmt_stacks_load(&run->stacks, p->views & (1u << VIEW_LIVE | 1u << VIEW_STACKS) ?
			run->t.dir : NULL);
	r->stacks = &run->stacks;
	kmt_symcache_init(&r->names, &run->syms);
	/* The filters need these during the pass; problems come after. */
	kmt_caches_load(&run->caches, p->filter.caches.nr ? run->t.dir : NULL);
	/* Task names, for --comm and the live view. */
	if ((p->filter.comms.nr || (p->views & (1u << VIEW_LIVE))) &&
	    !kmt_comms_load(&run->comms, run->t.dir, false) &&
	    !run->comms.nr && p->filter.comms.nr)
		kmt_err("%s/comms names no task, --comm selects nothing",
			run->t.dir);
	r->caches_file = &run->caches;
	r->comms = &run->comms;

	/* Frees matter to the other views, and to consumers of frees. */
	r->summary_only = p->views == 1u << VIEW_SUMMARY && !ON(r, REPLAY_FREE)->nr &&
			  !ON(r, REPLAY_STRAY)->nr;
	if (pass_start(&ps, r, uses, nr_uses, pass_jobs(p, uses, nr_uses))) {
		pass_end(&ps, uses, nr_uses);
		replay_run_free(run);
		return 1;
	}
	kmt_merge_start(&m, &run->t, run->st);
	account_events(&ps, &m);
	run->errors = kmt_merge_end(&m);
	pass_end(&ps, uses, nr_uses);
	account_live(r);
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

