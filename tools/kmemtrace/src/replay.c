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
 * stackstat, keysums, pagesums, mismatches, allocinfo).  See
 * Documentation/kmemtrace.rst.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "replay.h"
#include "utils.h"

/* ------------------------------------------------------------ consumers */

/* The consumers of callback @need (one enum replay_need bit). */
#define ON(r, need)	(&(r)->on[__builtin_ctz(need)])

static void call_alloc(struct report *r, const struct kmemtrace_event *ev,
		       const struct live_obj *o)
{
	const struct replay_list *l = ON(r, REPLAY_ALLOC);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->alloc(l->u[i]->ctx, ev, o);
}

static void call_free(struct report *r, const struct kmemtrace_event *ev,
		      const struct live_obj *o, uint64_t life)
{
	const struct replay_list *l = ON(r, REPLAY_FREE);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->free(l->u[i]->ctx, ev, o, life);
}

static void call_resize(struct report *r, const struct kmemtrace_event *ev,
			const struct live_obj *o, uint64_t bytes)
{
	const struct replay_list *l = ON(r, REPLAY_RESIZE);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->resize(l->u[i]->ctx, ev, o, bytes);
}

static void call_stray(struct report *r, const struct kmemtrace_event *ev,
		       const struct live_obj *o)
{
	const struct replay_list *l = ON(r, REPLAY_STRAY);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->stray(l->u[i]->ctx, ev, o);
}

static void call_backing(struct report *r, const struct kmemtrace_event *ev,
			 bool selected)
{
	const struct replay_list *l = ON(r, REPLAY_BACKING);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->backing(l->u[i]->ctx, ev, selected);
}

static void call_time(struct report *r, const struct kmemtrace_event *ev)
{
	const struct replay_list *l = ON(r, REPLAY_TIME);
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		l->u[i]->c->time(l->u[i]->ctx, ev);
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

/* --------------------------------------------------------------- sites */

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

/* ---------------------------------------------------------------- pass */

/* An allocation: @slot is the home slot of its memory, @si its site. */
static void account_alloc(struct report *r, const struct kmemtrace_event *ev,
			  size_t slot, uint32_t si)
{
	struct site *site = &r->sites.sites[si], *cache;
	unsigned int family = pair_type(ev->type);
	struct live_obj *o;
	bool sel;

	sel = !r->filtering || event_selected(r, ev, site);
	o = live_probe(&r->live, slot, family, ev->ptr);
	if (o->family) {
		/* Memory allocated twice: its free was not seen. */
		r->double_allocs++;
		if (ON(r, REPLAY_RESIZE)->nr && o->selected)
			call_resize(r, NULL, o, 0);
	} else {
		o->ptr = ev->ptr;
		o->family = family;
		r->live.nr++;
	}
	o->ts = ev->timestamp;
	o->bytes = ev->bytes_alloc;
	o->site = si;
	o->cpu = ev->cpu;
	o->pid = ev->pid;
	o->cache_id = ev->cache_id;
	o->origin = event_origin(r, ev);
	o->type = ev->type;
	o->selected = sel;
	o->uncharged = !!(ev->flags & KMEMTRACE_FLAG_UNCHARGED);
	if (!sel)
		return;
	if (ON(r, REPLAY_ALLOC)->nr)
		call_alloc(r, ev, o);
	r->selected++;
	site->allocs++;
	r->overflow |= add_u64_sat(&site->req, ev->bytes_req);
	r->overflow |= add_u64_sat(&site->alloc, ev->bytes_alloc);
	if (ev->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(&r->caches, ev->cache_id);
		cache->allocs++;
		r->overflow |= add_u64_sat(&cache->req, ev->bytes_req);
		r->overflow |= add_u64_sat(&cache->alloc, ev->bytes_alloc);
	}
}

/*
 * A free of memory not live in its family: memory allocated before the
 * trace, or memory of another API (a vmalloc() freed by kfree(), ...),
 * which is reported and stays live, as it was not freed.
 */
static void account_unknown_free(struct report *r,
				 const struct kmemtrace_event *ev)
{
	static const unsigned int families[] = {
		KMEMTRACE_TYPE_KMALLOC, KMEMTRACE_TYPE_PAGES,
		KMEMTRACE_TYPE_PERCPU, KMEMTRACE_TYPE_VMALLOC,
	};
	struct live_obj *o;
	struct site *site;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (families[i] == pair_type(ev->type))
			continue;
		o = live_find(&r->live, families[i], ev->ptr);
		if (o) {
			if (o->selected)
				r->sites.sites[o->site].mismatched++;
			if (ON(r, REPLAY_STRAY)->nr)
				call_stray(r, ev, o->selected ? o : NULL);
			return;
		}
	}
	if (ON(r, REPLAY_STRAY)->nr)
		call_stray(r, ev, NULL);
	site = site_get(&r->sites, ev->call_site);
	if (r->filtering && !event_selected(r, ev, site))
		return;
	site->unknown++;
	site->unknown_types |= 1u << ev->type;
}

/* What a free of a selected allocation @o adds up. */
static void account_free_of(struct report *r, const struct kmemtrace_event *ev,
			    const struct live_obj *o)
{
	struct site *site = &r->sites.sites[o->site], *cache = NULL;
	uint64_t life = ev->timestamp - o->ts;

	site->frees++;
	r->overflow |= add_u64_sat(&site->life, life);
	if (ev->cpu != o->cpu)
		site->xcpu++;
	if (ON(r, REPLAY_FREE)->nr)
		call_free(r, ev, o, life);
	if (o->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(&r->caches, o->cache_id);
		cache->frees++;
		r->overflow |= add_u64_sat(&cache->life, life);
		if (ev->cpu != o->cpu)
			cache->xcpu++;
	}
	if (replay_free_mismatched(ev, o)) {
		r->sites.sites[o->site].mismatched++;
		if (cache)
			cache->mismatched++;
	}
}

/* A free: @slot is the home slot of its memory. */
static void account_free(struct report *r, const struct kmemtrace_event *ev,
			 size_t slot)
{
	struct live_obj *o;

	o = live_probe(&r->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (!r->summary_only)
			account_unknown_free(r, ev);
		return;
	}
	/* The summary does not look at frees, nor at their allocation. */
	if (!r->summary_only && o->selected)
		account_free_of(r, ev, o);
	live_remove(&r->live, o);
}

/* A resize in place: @slot is the home slot of its memory. */
static void account_realloc(struct report *r, const struct kmemtrace_event *ev,
			    size_t slot)
{
	struct live_obj *o;

	o = live_probe(&r->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (ON(r, REPLAY_STRAY)->nr)
			call_stray(r, ev, NULL);
		return;
	}
	if (ON(r, REPLAY_RESIZE)->nr && o->selected)
		call_resize(r, ev, o, ev->bytes_alloc);
	o->bytes = ev->bytes_alloc;
}

/*
 * Backing store events are only counted, unpaired frees skipped; their
 * consumers learn whether the filters select a backing alloc.
 */
static void account_backing(struct report *r, const struct kmemtrace_event *ev)
{
	bool sel = false;

	if (ON(r, REPLAY_BACKING)->nr) {
		if (ev->kind == KMEMTRACE_KIND_ALLOC && !kmt_event_is_unpaired(ev))
			sel = !r->filtering ||
			      event_selected(r, ev, site_get(&r->sites, ev->call_site));
		call_backing(r, ev, sel);
	}
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
 * Replay a batch of events, in order: an alloc makes its memory (type and
 * pointer) live with its size, a realloc of live memory changes the size,
 * a free ends it.  Memory live at the end is still allocated.  Memory
 * allocated before the trace started is not counted, even when a realloc
 * shows it.
 *
 * Events come in faster than the tables answer, as memory is freed in
 * another order than it was allocated and call sites come in any order:
 * the slots and the sites of a batch are looked up first, so that the
 * CPU fetches them all at once, then the events are replayed, finding
 * what they need in the CPU caches.
 */
static void account_batch(struct report *r, const struct kmemtrace_event **ev,
			  size_t n)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	size_t slot[KMT_MERGE_BATCH], mask;
	uint32_t si[KMT_MERGE_BATCH];
	const struct kmemtrace_event *e;
	struct live_obj *slots;
	size_t i;

	/* The slots stay where they are during the batch. */
	live_reserve(&r->live, n);
	slots = r->live.slots;
	mask = ((size_t)1 << r->live.bits) - 1;
	for (i = 0; i < n; i++) {
		e = ev[i];
		slot[i] = live_hash(pair_type(e->type), e->ptr, r->live.bits);
		/* A removal looks at the next slot too. */
		__builtin_prefetch(&slots[slot[i]], 1);
		__builtin_prefetch((char *)&slots[slot[i]] + 63, 1);
		__builtin_prefetch(&slots[(slot[i] + 1) & mask].pad, 1);
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
		if (ON(r, REPLAY_TIME)->nr)
			call_time(r, e);
		r->count[e->kind][e->type]++;
		if (e->flags & special) {
			account_backing(r, e);
			continue;
		}
		if (e->kind == KMEMTRACE_KIND_ALLOC)
			account_alloc(r, e, slot[i], si[i]);
		else if (e->kind == KMEMTRACE_KIND_FREE)
			account_free(r, e, slot[i]);
		else
			account_realloc(r, e, slot[i]);
	}
}

/* Replay every event of @m in the --time window, in order. */
static void account_events(struct report *r, struct kmt_merge *m)
{
	const struct kmt_filter *f = &r->p->filter;
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
			account_batch(r, ev, n);
	}
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
	kmt_merge_start(&m, &run->t, run->st);
	account_events(r, &m);
	run->errors = kmt_merge_end(&m);
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

