// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - names of the GFP flags and migrate types events carry
 *
 * gfp_t bits are not part of the kernel's ABI; these are those of Linux
 * 6.12 (include/linux/gfp_types.h), which kmemtrace records, up to
 * ___GFP_ZEROTAGS_BIT: the bits after it depend on the configuration.
 */
#include <stdio.h>
#include <string.h>

#include "gfp.h"
#include "utils.h"

#define GFP_DMA			0x1u
#define GFP_HIGHMEM		0x2u
#define GFP_DMA32		0x4u
#define GFP_MOVABLE		0x8u
#define GFP_RECLAIMABLE		0x10u
#define GFP_HIGH		0x20u
#define GFP_IO			0x40u
#define GFP_FS			0x80u
#define GFP_ZERO		0x100u
#define GFP_DIRECT_RECLAIM	0x400u
#define GFP_KSWAPD_RECLAIM	0x800u
#define GFP_WRITE		0x1000u
#define GFP_NOWARN		0x2000u
#define GFP_RETRY_MAYFAIL	0x4000u
#define GFP_NOFAIL		0x8000u
#define GFP_NORETRY		0x10000u
#define GFP_MEMALLOC		0x20000u
#define GFP_COMP		0x40000u
#define GFP_NOMEMALLOC		0x80000u
#define GFP_HARDWALL		0x100000u
#define GFP_THISNODE		0x200000u
#define GFP_ACCOUNT		0x400000u
#define GFP_ZEROTAGS		0x800000u

#define GFP_RECLAIM		(GFP_DIRECT_RECLAIM | GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL_		(GFP_RECLAIM | GFP_IO | GFP_FS)
#define GFP_USER_		(GFP_KERNEL_ | GFP_HARDWALL)
#define GFP_HIGHUSER_		(GFP_USER_ | GFP_HIGHMEM)
/* __GFP_SKIP_KASAN is 0 without CONFIG_KASAN_HW_TAGS, as on x86. */
#define GFP_HIGHUSER_MOVABLE_	(GFP_HIGHUSER_ | GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT_	((GFP_HIGHUSER_MOVABLE_ | GFP_COMP | \
				  GFP_NOMEMALLOC | GFP_NOWARN) & ~GFP_RECLAIM)

static const struct {
	uint32_t mask;
	const char *name;
} gfp_names[] = {
	{ GFP_TRANSHUGE_LIGHT_ | GFP_DIRECT_RECLAIM, "GFP_TRANSHUGE" },
	{ GFP_TRANSHUGE_LIGHT_,		"GFP_TRANSHUGE_LIGHT" },
	{ GFP_HIGHUSER_MOVABLE_,	"GFP_HIGHUSER_MOVABLE" },
	{ GFP_HIGHUSER_,		"GFP_HIGHUSER" },
	{ GFP_USER_,			"GFP_USER" },
	{ GFP_KERNEL_ | GFP_ACCOUNT,	"GFP_KERNEL_ACCOUNT" },
	{ GFP_KERNEL_,			"GFP_KERNEL" },
	{ GFP_RECLAIM | GFP_IO,		"GFP_NOFS" },
	{ GFP_HIGH | GFP_KSWAPD_RECLAIM, "GFP_ATOMIC" },
	{ GFP_RECLAIM,			"GFP_NOIO" },
	{ GFP_KSWAPD_RECLAIM | GFP_NOWARN, "GFP_NOWAIT" },
	{ GFP_DMA,			"GFP_DMA" },
	{ GFP_HIGHMEM,			"__GFP_HIGHMEM" },
	{ GFP_DMA32,			"GFP_DMA32" },
	{ GFP_HIGH,			"__GFP_HIGH" },
	{ GFP_IO,			"__GFP_IO" },
	{ GFP_FS,			"__GFP_FS" },
	{ GFP_NOWARN,			"__GFP_NOWARN" },
	{ GFP_RETRY_MAYFAIL,		"__GFP_RETRY_MAYFAIL" },
	{ GFP_NOFAIL,			"__GFP_NOFAIL" },
	{ GFP_NORETRY,			"__GFP_NORETRY" },
	{ GFP_COMP,			"__GFP_COMP" },
	{ GFP_ZERO,			"__GFP_ZERO" },
	{ GFP_NOMEMALLOC,		"__GFP_NOMEMALLOC" },
	{ GFP_MEMALLOC,			"__GFP_MEMALLOC" },
	{ GFP_HARDWALL,			"__GFP_HARDWALL" },
	{ GFP_THISNODE,			"__GFP_THISNODE" },
	{ GFP_RECLAIMABLE,		"__GFP_RECLAIMABLE" },
	{ GFP_MOVABLE,			"__GFP_MOVABLE" },
	{ GFP_ACCOUNT,			"__GFP_ACCOUNT" },
	{ GFP_WRITE,			"__GFP_WRITE" },
	{ GFP_RECLAIM,			"__GFP_RECLAIM" },
	{ GFP_DIRECT_RECLAIM,		"__GFP_DIRECT_RECLAIM" },
	{ GFP_KSWAPD_RECLAIM,		"__GFP_KSWAPD_RECLAIM" },
	{ GFP_ZEROTAGS,			"__GFP_ZEROTAGS" },
};

void kmt_gfp_format(uint32_t gfp, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	if (!gfp) {
		snprintf(buf, len, "none");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(gfp_names) && used < len; i++) {
		if ((gfp & gfp_names[i].mask) != gfp_names[i].mask)
			continue;
		gfp &= ~gfp_names[i].mask;
		n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     gfp_names[i].name);
		used += n > 0 ? n : 0;
	}
	if (gfp && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", gfp);
}

const char *kmt_migratetype_name(unsigned int mt)
{
	static const char * const names[] = {
		"unmovable", "movable", "reclaimable", "highatomic",
	};

	return mt < ARRAY_SIZE(names) ? names[mt] : NULL;
}
