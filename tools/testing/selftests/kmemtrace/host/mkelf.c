// SPDX-License-Identifier: GPL-2.0
/*
 * mkelf - write a minimal ELF file with a GNU build id for the host tests
 *
 * usage: mkelf [-3] [-b] [-N] FILE [BUILD_ID]
 *
 * Writes an ELF64 (-3: ELF32) little-endian (-b: big-endian) file whose
 * section headers are a null section, a .note section holding a "Xen"
 * note, a "Linux" note and then, when BUILD_ID (hex) is given, an
 * NT_GNU_BUILD_ID note, and .shstrtab.  Only what build id readers look
 * at is filled in.  -N writes only the notes, in the byte order of this
 * machine, as /sys/kernel/notes holds them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char out[4096];
static size_t used;
static int msb;

static void die(const char *what)
{
	fprintf(stderr, "mkelf: %s\n", what);
	exit(2);
}

static void put_at(size_t off, unsigned long long v, size_t size)
{
	size_t i;

	if (off + size > sizeof(out))
		die("too big");
	for (i = 0; i < size; i++)
		out[off + (msb ? size - 1 - i : i)] = v >> (8 * i);
	if (off + size > used)
		used = off + size;
}

static void put_bytes(size_t off, const void *p, size_t len)
{
	if (off + len > sizeof(out))
		die("too big");
	memcpy(out + off, p, len);
	if (off + len > used)
		used = off + len;
}

/* Write a note at @off; return the offset after it. */
static size_t put_note(size_t off, const char *name, unsigned int type,
		       const unsigned char *desc, size_t descsz)
{
	size_t namesz = strlen(name) + 1;

	put_at(off, namesz, 4);
	put_at(off + 4, descsz, 4);
	put_at(off + 8, type, 4);
	put_bytes(off + 12, name, namesz);
	off = (off + 12 + namesz + 3) / 4 * 4;
	put_bytes(off, desc, descsz);
	return (off + descsz + 3) / 4 * 4;
}

int main(int argc, char **argv)
{
	static const char shstrtab[] = "\0.note\0.shstrtab";
	unsigned char id[64], xen[4] = { 1, 2, 3, 4 }, lnx[3] = { 5, 6, 7 };
	size_t idlen = 0, notes, notes_end, strtab, shoff, shentsize, i;
	int c, is64 = 1, notes_only = 0;
	const char *hex;
	FILE *f;

	while ((c = getopt(argc, argv, "3bN")) != -1) {
		if (c == '3')
			is64 = 0;
		else if (c == 'b')
			msb = 1;
		else if (c == 'N')
			notes_only = 1;
		else
			die("usage: mkelf [-3] [-b] [-N] FILE [BUILD_ID]");
	}
	if (optind != argc - 1 && optind != argc - 2)
		die("usage: mkelf [-3] [-b] [-N] FILE [BUILD_ID]");
	if (notes_only)
		msb = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	hex = optind == argc - 2 ? argv[optind + 1] : "";
	for (i = 0; hex[2 * i]; i++) {
		if (i == sizeof(id) || sscanf(hex + 2 * i, "%2hhx", &id[i]) != 1)
			die("bad build id");
	}
	idlen = i;
	memcpy(out, "\177ELF", 4);
	out[4] = is64 ? 2 : 1;
	out[5] = msb ? 2 : 1;
	out[6] = 1;
	put_at(0x10, 2, 2);	/* e_type ET_EXEC */
	notes = is64 ? 64 : 52;
	notes_end = put_note(notes, "Xen", 6, xen, sizeof(xen));
	notes_end = put_note(notes_end, "Linux", 1, lnx, sizeof(lnx));
	if (idlen)
		notes_end = put_note(notes_end, "GNU", 3, id, idlen);
	strtab = notes_end;
	put_bytes(strtab, shstrtab, sizeof(shstrtab));
	shoff = (strtab + sizeof(shstrtab) + 7) / 8 * 8;
	shentsize = is64 ? 64 : 40;
	if (is64) {
		put_at(0x28, shoff, 8);
		put_at(0x3a, shentsize, 2);
		put_at(0x3c, 3, 2);
		put_at(0x3e, 2, 2);
	} else {
		put_at(0x20, shoff, 4);
		put_at(0x2e, shentsize, 2);
		put_at(0x30, 3, 2);
		put_at(0x32, 2, 2);
	}
	/* Section 0 is all zeros; 1 is .note, 2 is .shstrtab. */
	put_at(shoff + 3 * shentsize - 1, 0, 1);
	for (i = 1; i <= 2; i++) {
		size_t sh = shoff + i * shentsize;
		size_t off = i == 1 ? notes : strtab;
		size_t size = i == 1 ? notes_end - notes : sizeof(shstrtab);

		put_at(sh, i == 1 ? 1 : 7, 4);		/* sh_name */
		put_at(sh + 4, i == 1 ? 7 : 3, 4);	/* SHT_NOTE, SHT_STRTAB */
		put_at(sh + (is64 ? 0x18 : 0x10), off, is64 ? 8 : 4);
		put_at(sh + (is64 ? 0x20 : 0x14), size, is64 ? 8 : 4);
		put_at(sh + (is64 ? 0x30 : 0x20), i == 1 ? 4 : 1, is64 ? 8 : 4);
	}
	if (notes_only) {
		memmove(out, out + notes, notes_end - notes);
		used = notes_end - notes;
	}
	f = fopen(argv[optind], "w");
	if (!f || fwrite(out, 1, used, f) != used || fclose(f))
		die("cannot write the file");
	return 0;
}
