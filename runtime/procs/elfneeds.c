/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "elfneeds.h"

/* The dynamic section and the string table it names stay well below this:
 * a larger one is not a program to judge. */
#define ELF_MAX_READ (16u << 20)

typedef struct elf_file {
    int fd;
    off_t size;
    Elf64_Ehdr eh;
    Elf64_Phdr *ph;
} elf_file_t;

static int read_at(const elf_file_t *f, void *buf, size_t len, uint64_t off)
{
    if (off > (uint64_t)f->size || len > (uint64_t)f->size - off)
        return HNP_ERR_BAD_PARAM;
    return pread(f->fd, buf, len, (off_t)off) == (ssize_t)len
               ? HNP_SUCCESS : HNP_ERR_IO;
}

static int read_headers(elf_file_t *f)
{
    size_t len;
    int rc = read_at(f, &f->eh, sizeof(f->eh), 0);

    if (rc != HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    if (memcmp(f->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        f->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        f->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        f->eh.e_phentsize != sizeof(Elf64_Phdr) || f->eh.e_phnum == 0)
        return HNP_ERR_BAD_PARAM;
    len = (size_t)f->eh.e_phnum * sizeof(Elf64_Phdr);
    if ((f->ph = malloc(len)) == NULL)
        return HNP_ERR_NOMEM;
    return read_at(f, f->ph, len, f->eh.e_phoff);
}

/* The file offset of virtual address @p vaddr, through the PT_LOAD that
 * holds it. */
static int vaddr_to_offset(const elf_file_t *f, uint64_t vaddr,
                           uint64_t *off)
{
    for (unsigned i = 0; i < f->eh.e_phnum; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
            vaddr - p->p_vaddr < p->p_filesz) {
            *off = p->p_offset + (vaddr - p->p_vaddr);
            return HNP_SUCCESS;
        }
    }
    return HNP_ERR_BAD_PARAM;
}

static const Elf64_Phdr *find_dynamic(const elf_file_t *f)
{
    for (unsigned i = 0; i < f->eh.e_phnum; i++)
        if (f->ph[i].p_type == PT_DYNAMIC)
            return &f->ph[i];
    return NULL;
}

/* Each DT_NEEDED string, from the string table DT_STRTAB/DT_STRSZ name. */
static int walk_needed(const elf_file_t *f, const Elf64_Dyn *dyn, size_t n,
                       bool (*fn)(void *ctx, const char *lib), void *ctx)
{
    uint64_t strtab = 0, strsz = 0, off;
    char *strings;
    int rc;

    for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB)
            strtab = dyn[i].d_un.d_ptr;
        else if (dyn[i].d_tag == DT_STRSZ)
            strsz = dyn[i].d_un.d_val;
    }
    if (strsz == 0 || strsz > ELF_MAX_READ ||
        vaddr_to_offset(f, strtab, &off) != HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    if ((strings = malloc(strsz + 1)) == NULL)
        return HNP_ERR_NOMEM;
    rc = read_at(f, strings, strsz, off);
    strings[strsz] = '\0';
    for (size_t i = 0; rc == HNP_SUCCESS && i < n && dyn[i].d_tag != DT_NULL;
         i++)
        if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < strsz &&
            fn(ctx, strings + dyn[i].d_un.d_val))
            break;
    free(strings);
    return rc;
}

static int read_needed(elf_file_t *f, bool (*fn)(void *ctx, const char *lib),
                       void *ctx)
{
    const Elf64_Phdr *dp;
    Elf64_Dyn *dyn;
    int rc;

    if ((dp = find_dynamic(f)) == NULL || dp->p_filesz > ELF_MAX_READ ||
        dp->p_filesz < sizeof(Elf64_Dyn))
        return HNP_ERR_BAD_PARAM;
    if ((dyn = malloc(dp->p_filesz)) == NULL)
        return HNP_ERR_NOMEM;
    rc = read_at(f, dyn, dp->p_filesz, dp->p_offset);
    if (rc == HNP_SUCCESS)
        rc = walk_needed(f, dyn, dp->p_filesz / sizeof(Elf64_Dyn), fn, ctx);
    free(dyn);
    return rc;
}

static int elf_open(elf_file_t *f, const char *path)
{
    struct stat st;

    f->fd = -1;
    f->ph = NULL;
    if (path == NULL)
        return HNP_ERR_BAD_PARAM;
    if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return HNP_ERR_BAD_PARAM;
    f->size = st.st_size;
    return read_headers(f);
}

static void elf_close(elf_file_t *f)
{
    free(f->ph);
    if (f->fd >= 0)
        close(f->fd);
}

int hnp_elf_needed_each(const char *path,
                        bool (*fn)(void *ctx, const char *lib), void *ctx)
{
    elf_file_t f;
    int rc;

    if (fn == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = elf_open(&f, path);
    if (rc == HNP_SUCCESS)
        rc = read_needed(&f, fn, ctx);
    elf_close(&f);
    return rc;
}

/* Section @p i's header. */
static int read_section(const elf_file_t *f, unsigned i, Elf64_Shdr *sh)
{
    if (f->eh.e_shentsize != sizeof(Elf64_Shdr) || i >= f->eh.e_shnum)
        return HNP_ERR_BAD_PARAM;
    return read_at(f, sh, sizeof(*sh),
                   f->eh.e_shoff + (uint64_t)i * sizeof(Elf64_Shdr));
}

/* A section's contents, NUL-terminated, at most ELF_MAX_READ bytes. */
static int read_section_data(const elf_file_t *f, const Elf64_Shdr *sh,
                             char **out)
{
    int rc;

    if (sh->sh_size > ELF_MAX_READ)
        return HNP_ERR_BAD_PARAM;
    if ((*out = malloc(sh->sh_size + 1)) == NULL)
        return HNP_ERR_NOMEM;
    rc = read_at(f, *out, sh->sh_size, sh->sh_offset);
    (*out)[sh->sh_size] = '\0';
    if (rc != HNP_SUCCESS) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

static int walk_imports(const elf_file_t *f, const Elf64_Shdr *symtab,
                        bool (*fn)(void *ctx, const char *sym), void *ctx)
{
    Elf64_Shdr strtab;
    char *syms = NULL, *strings = NULL;
    int rc = read_section(f, symtab->sh_link, &strtab);

    if (rc == HNP_SUCCESS && (symtab->sh_entsize != sizeof(Elf64_Sym) ||
                              strtab.sh_type != SHT_STRTAB))
        rc = HNP_ERR_BAD_PARAM;
    if (rc == HNP_SUCCESS)
        rc = read_section_data(f, symtab, &syms);
    if (rc == HNP_SUCCESS)
        rc = read_section_data(f, &strtab, &strings);
    for (uint64_t i = 0; rc == HNP_SUCCESS && i < symtab->sh_size / sizeof(Elf64_Sym);
         i++) {
        Elf64_Sym sym;

        memcpy(&sym, syms + i * sizeof(Elf64_Sym), sizeof(sym));
        if (sym.st_shndx == SHN_UNDEF && sym.st_name != 0 &&
            sym.st_name < strtab.sh_size && fn(ctx, strings + sym.st_name))
            break;
    }
    free(syms);
    free(strings);
    return rc;
}

int hnp_elf_imports_each(const char *path,
                         bool (*fn)(void *ctx, const char *sym), void *ctx)
{
    elf_file_t f;
    Elf64_Shdr sh;
    int rc;

    if (fn == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = elf_open(&f, path);
    if (rc == HNP_SUCCESS && find_dynamic(&f) == NULL)
        rc = HNP_ERR_BAD_PARAM;
    /* The dynamic symbols are found through the section headers: a file
     * stripped of them is not one to judge. */
    if (rc == HNP_SUCCESS && f.eh.e_shnum == 0)
        rc = HNP_ERR_BAD_PARAM;
    for (unsigned i = 0; rc == HNP_SUCCESS && i < f.eh.e_shnum; i++) {
        rc = read_section(&f, i, &sh);
        if (rc == HNP_SUCCESS && sh.sh_type == SHT_DYNSYM) {
            rc = walk_imports(&f, &sh, fn, ctx);
            elf_close(&f);
            return rc;
        }
    }
    elf_close(&f);
    return rc == HNP_SUCCESS ? HNP_ERR_BAD_PARAM : rc;
}
