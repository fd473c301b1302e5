/* metadata.c — host-only reading of the nvfp4_kernel_metadata table: a minimal ELF64
 * symbol lookup over a cubin image, decoding/validation of the 256-byte records
 * (KernelABI.h offsets) and of the family they form, the encoder, and the
 * target-vs-device check. No driver needed. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The largest cost_decode_rows a record may carry (four 256-row token tiles). */
#define NVFP4RT_MAX_COST_DECODE_ROWS 1024u

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const unsigned char *p) { return nvfp4_meta_read_u32(p, 0); }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

/* ELF64 little-endian constants used here. */
enum { kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtNobits = 8, kEhdrSize = 64,
       kShdrSize = 64, kPhdrSize = 56, kSymSize = 24, kShnLoreserve = 0xff00 };

/* [off, off + len) inside an image of `size` bytes, without overflow. */
static int in_image(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

nvfp4rt_status nvfp4rt_elf_check_image(const void *image, size_t size) {
  if (!image) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "elf_check_image: image is NULL");
  const unsigned char *b = image;
  if (size < kEhdrSize || memcmp(b, "\177ELF", 4) != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "not an ELF image (%zu bytes)", size);
  if (b[4] != 2 || b[5] != 1)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "not a little-endian ELF64 image");
  if (rd16(b + 0x34) != kEhdrSize)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF header size %u, expected %u",
                        rd16(b + 0x34), kEhdrSize);
  const uint64_t phoff = rd64(b + 0x20), shoff = rd64(b + 0x28);
  const uint16_t phentsize = rd16(b + 0x36), phnum = rd16(b + 0x38);
  const uint16_t shentsize = rd16(b + 0x3A), shnum = rd16(b + 0x3C), shstrndx = rd16(b + 0x3E);
  /* phnum 0 with a table offset, like shnum 0 with one below, is not a valid image */
  if (phnum == 0 ? phoff != 0
                 : phentsize != kPhdrSize || !in_image(phoff, (uint64_t)phnum * kPhdrSize, size))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                        "ELF program header table (%u x %u bytes at %llu) out of bounds of the "
                        "%zu-byte image", phnum, phentsize, (unsigned long long)phoff, size);
  /* shnum 0 with a table offset is the extended numbering no cubin uses */
  if (shnum == 0 ? shoff != 0
                 : shentsize != kShdrSize || !in_image(shoff, (uint64_t)shnum * kShdrSize, size))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                        "ELF section header table (%u x %u bytes at %llu) out of bounds of the "
                        "%zu-byte image", shnum, shentsize, (unsigned long long)shoff, size);
  if (shstrndx >= kShnLoreserve || (shnum && shstrndx >= shnum))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF section-name table index %u of %u",
                        shstrndx, shnum);
  for (uint32_t i = 0; i < phnum; i++) {
    const unsigned char *ph = b + phoff + (uint64_t)i * kPhdrSize;
    const uint64_t off = rd64(ph + 8), filesz = rd64(ph + 32);
    if (!in_image(off, filesz, size))
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                          "ELF segment %u (%llu bytes at %llu) out of bounds of the %zu-byte "
                          "image", i, (unsigned long long)filesz, (unsigned long long)off, size);
  }
  uint64_t names_size = 0;
  if (shnum && shstrndx) {
    const unsigned char *strsh = b + shoff + (uint64_t)shstrndx * kShdrSize;
    names_size = rd32(strsh + 4) == kShtNobits ? 0 : rd64(strsh + 0x20);
  }
  for (uint32_t i = 0; i < shnum; i++) {
    const unsigned char *sh = b + shoff + (uint64_t)i * kShdrSize;
    const uint32_t type = rd32(sh + 4), link = rd32(sh + 0x28);
    const uint64_t off = rd64(sh + 0x18), len = rd64(sh + 0x20);
    if (type != kShtNobits && type != kShtNull && !in_image(off, len, size))
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                          "ELF section %u (type 0x%x, %llu bytes at %llu) out of bounds of the "
                          "%zu-byte image", i, type, (unsigned long long)len,
                          (unsigned long long)off, size);
    if (link >= shnum)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF section %u links to section %u of %u",
                          i, link, shnum);
    if (i && shstrndx && rd32(sh) >= names_size)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                          "ELF section %u name offset %u past the %llu-byte name table", i,
                          rd32(sh), (unsigned long long)names_size);
  }
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_elf_find_metadata(const void *image, size_t size,
                                         const unsigned char **record, size_t *record_size) {
  if (!image || !record || !record_size)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "elf_find_metadata: NULL argument");
  nvfp4rt_status checked = nvfp4rt_elf_check_image(image, size);
  if (checked != NVFP4RT_STATUS_OK) return checked;
  const unsigned char *b = image;
  uint64_t shoff = rd64(b + 0x28);
  uint16_t shentsize = rd16(b + 0x3A), shnum = rd16(b + 0x3C);
  if (shentsize != kShdrSize || shnum == 0 || shoff > size ||
      (uint64_t)shnum * kShdrSize > size - shoff)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF section header table out of bounds");
  for (uint32_t i = 0; i < shnum; i++) {
    const unsigned char *sh = b + shoff + (uint64_t)i * kShdrSize;
    if (rd32(sh + 4) != kShtSymtab) continue;
    uint64_t symoff = rd64(sh + 0x18), symsize = rd64(sh + 0x20), entsize = rd64(sh + 0x38);
    uint32_t link = rd32(sh + 0x28);
    if (entsize != kSymSize || symoff > size || symsize > size - symoff || link >= shnum)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF symbol table %u malformed", i);
    const unsigned char *strsh = b + shoff + (uint64_t)link * kShdrSize;
    uint64_t stroff = rd64(strsh + 0x18), strsize = rd64(strsh + 0x20);
    if (stroff > size || strsize > size - stroff)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "ELF string table out of bounds");
    const char *strtab = (const char *)b + stroff;
    const size_t want_len = sizeof NVFP4_METADATA_SYMBOL; /* with NUL */
    for (uint64_t s = 0; s + kSymSize <= symsize; s += kSymSize) {
      const unsigned char *sym = b + symoff + s;
      uint32_t name = rd32(sym);
      if (name >= strsize || strsize - name < want_len) continue;
      if (memcmp(strtab + name, NVFP4_METADATA_SYMBOL, want_len) != 0) continue;
      uint16_t shndx = rd16(sym + 6);
      uint64_t value = rd64(sym + 8), ssize = rd64(sym + 16);
      if (shndx == 0 || shndx >= shnum)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                            "symbol %s is undefined or in a special section (%u)",
                            NVFP4_METADATA_SYMBOL, shndx);
      const unsigned char *dsh = b + shoff + (uint64_t)shndx * kShdrSize;
      uint32_t type = rd32(dsh + 4);
      if (type == kShtNobits)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                            "symbol %s lives in a NOBITS section (uninitialised)",
                            NVFP4_METADATA_SYMBOL);
      if (type != kShtProgbits)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "symbol %s in section of type %u",
                            NVFP4_METADATA_SYMBOL, type);
      uint64_t dataoff = rd64(dsh + 0x18), datasize = rd64(dsh + 0x20);
      uint64_t secaddr = rd64(dsh + 0x10);
      /* ptxas cubins have sh_addr 0 and section-relative st_value; linked images may give
       * st_value as an address inside the section */
      if (secaddr != 0 && value >= secaddr) value -= secaddr;
      if (dataoff > size || datasize > size - dataoff || value > datasize ||
          ssize > datasize - value)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "symbol %s data out of bounds",
                            NVFP4_METADATA_SYMBOL);
      *record = b + dataoff + value;
      *record_size = (size_t)ssize;
      return NVFP4RT_STATUS_OK;
    }
  }
  return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "cubin has no symbol '%s' (not an nvfp4 kernel?)",
                      NVFP4_METADATA_SYMBOL);
}

static void copy_str(char *dst, size_t n, const unsigned char *src) {
  memcpy(dst, src, n);
  dst[n - 1] = 0;
}

/* The target the kernel was generated for, when the record names it (the compiler always
 * does): a known one; the record's own unless a flag says an emulation or proxy build
 * retargeted it, and then of the kernel that build rewrites (tcgen05 for the emulation and
 * the proxy, the block-scaled mma.sync for its emulation). */
static nvfp4rt_status check_source_target(const nvfp4_kernel_metadata *m) {
  if (!m->source_target[0]) return NVFP4RT_STATUS_OK;
  const nvfp4_target_info *src = nvfp4_target_find(m->source_target);
  if (!src)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TARGET_MISMATCH,
                        "metadata source target '%s' unsupported (this runtime knows %s)",
                        m->source_target, nvfp4_target_names());
  const uint32_t tc = NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_PROXY;
  const int want = (m->flags & tc)                                   ? (int)NVFP4_TARGET_GEN_TCGEN05
                   : (m->flags & NVFP4_META_FLAG_EMULATION_MMA_SYNC) ? (int)NVFP4_TARGET_GEN_MMA_SYNC
                                                                     : -1;
  if (want < 0 && strcmp(m->source_target, m->target) != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata source target '%s' differs from target '%s' without an "
                        "emulation or proxy flag", m->source_target, m->target);
  if (want >= 0 && src->generator != (uint32_t)want)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata flags 0x%x: %s build of a '%s' kernel", m->flags,
                        want == (int)NVFP4_TARGET_GEN_TCGEN05 ? "a tcgen05 emulation or proxy"
                                                              : "an mma.sync emulation",
                        m->source_target);
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_metadata_decode(const unsigned char *rec, size_t size,
                                       nvfp4_kernel_metadata *m) {
  if (!rec || !m) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "metadata_decode: NULL");
  if (size < NVFP4_METADATA_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata record is %zu bytes, need %u",
                        size, NVFP4_METADATA_BYTES);
  memset(m, 0, sizeof *m);
#define F(field, off) m->field = nvfp4_meta_read_u32(rec, NVFP4_META_##off);
  NVFP4_META_U32_FIELDS(F)
#undef F
  copy_str(m->kernel_name, NVFP4_META_KERNEL_NAME_BYTES, rec + NVFP4_META_KERNEL_NAME);
  copy_str(m->target, NVFP4_META_TARGET_BYTES, rec + NVFP4_META_TARGET);
  copy_str(m->source_target, NVFP4_META_SOURCE_TARGET_BYTES, rec + NVFP4_META_SOURCE_TARGET);

  if (m->magic != NVFP4_METADATA_MAGIC)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata magic 0x%08x, expected 0x%08x",
                        m->magic, NVFP4_METADATA_MAGIC);
  if (m->abi_version != NVFP4_ABI_VERSION)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "kernel ABI version %u, this runtime implements %u", m->abi_version,
                        NVFP4_ABI_VERSION);
  if (m->record_bytes != NVFP4_METADATA_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata record_bytes %u, expected %u",
                        m->record_bytes, NVFP4_METADATA_BYTES);
  if (rec[NVFP4_META_KERNEL_NAME + NVFP4_META_KERNEL_NAME_BYTES - 1] != 0 ||
      rec[NVFP4_META_TARGET + NVFP4_META_TARGET_BYTES - 1] != 0 ||
      rec[NVFP4_META_SOURCE_TARGET + NVFP4_META_SOURCE_TARGET_BYTES - 1] != 0 ||
      !m->kernel_name[0])
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata kernel name/target string empty or not NUL-terminated");
  if (m->max_groups == 0 || m->max_groups > NVFP4_ABI_MAX_GROUPS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata max_groups %u not in 1..%u",
                        m->max_groups, NVFP4_ABI_MAX_GROUPS);
  if (m->form > NVFP4_META_FORM_CONTIGUOUS || m->c_type > NVFP4_META_C_FP4 ||
      (m->epilogue_flags & ~(NVFP4_META_EFLAG_ALPHA | NVFP4_META_EFLAG_SWIGLU_NVFP4)))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "metadata form %u / C type %u / epilogue flags 0x%x unknown", m->form,
                        m->c_type, m->epilogue_flags);
  /* the fused epilogue writes FP4 codes, and only it does; its activation dump goes with it */
  const int fused = (m->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) != 0;
  if (fused != (m->c_type == NVFP4_META_C_FP4) ||
      ((m->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) && !fused) ||
      ((m->variant_flags & NVFP4_META_VFLAG_SWIGLU_MID_ATOM) && !fused) ||
      (fused && (m->epilogue != NVFP4_META_EPILOGUE_DIRECT_STORE ||
                 (m->orientation == NVFP4_META_ORIENTATION_AB ? m->tile_n != 2u * m->n_box_rows
                                                              : m->tile_m != 2u * m->m_box_rows))))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata of '%s': C type %u, epilogue flags 0x%x, flags 0x%x, variant "
                        "flags 0x%x: the fused SwiGLU epilogue needs an FP4 C, a direct-store "
                        "kernel whose B box is half its B-side tile; an FP4 C, the activation "
                        "dump and the mid-atom flag go with it only",
                        m->kernel_name, m->c_type, m->epilogue_flags, m->flags, m->variant_flags);
  if (m->form == NVFP4_META_FORM_POINTER_ARRAY && m->param_bytes != NVFP4_ABI_PARAM_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata param_bytes %u != %u (the pointer-array form's header)",
                        m->param_bytes, NVFP4_ABI_PARAM_BYTES);
  for (int i = 0; i < 3; i++)
    if (m->block[i] == 0 || m->cluster[i] == 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata block/cluster dim %d is 0", i);
  if (m->tile_m == 0 || m->tile_n == 0 || m->tile_m > 256 || m->tile_n > 256)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata tile %ux%u not in 1..256",
                        m->tile_m, m->tile_n);
  if (m->k_granule == 0 || m->k_granule % 64 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata k_granule %u is not a positive multiple of 64", m->k_granule);
  if (m->sfn_atoms == 0 || m->sfn_atoms > 3 || m->sfm_atoms == 0 || m->sfm_atoms > 3)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata scale-factor atoms %u/%u not in 1..3", m->sfm_atoms,
                        m->sfn_atoms);
  if (m->variant_count == 0 || m->variant_count > NVFP4_METADATA_MAX_VARIANTS ||
      m->variant_index >= m->variant_count)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata variant %u of %u", m->variant_index,
                        m->variant_count);
  if (m->orientation > NVFP4_META_ORIENTATION_SWAP_AB || m->epilogue > NVFP4_META_EPILOGUE_TMA_STORE)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED, "metadata orientation %u / epilogue %u unknown",
                        m->orientation, m->epilogue);
  if ((m->cta_group != 1 && m->cta_group != 2) || m->cluster[0] != m->cta_group)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata cta_group %u with a cluster of %u CTAs", m->cta_group,
                        m->cluster[0]);
  /* the fused epilogue loads its B tile (the N role; the M role of a swap-AB kernel) as a
   * gate and an up box */
  const uint32_t halves = m->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4 ? 2u : 1u;
  const uint32_t swap_halves = m->orientation == NVFP4_META_ORIENTATION_SWAP_AB ? halves : 1u;
  if (m->m_box_rows == 0 || m->m_box_rows > 256 || m->n_box_rows == 0 || m->n_box_rows > 256 ||
      m->m_box_rows * m->cta_group * swap_halves != m->tile_m ||
      m->n_box_rows * m->cta_group * (halves / swap_halves) != m->tile_n)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata boxes %u/%u rows do not tile %ux%u over %u CTA(s)",
                        m->m_box_rows, m->n_box_rows, m->tile_m, m->tile_n, m->cta_group);
  if (m->epilogue == NVFP4_META_EPILOGUE_TMA_STORE &&
      (m->store_box_rows == 0 || m->store_box_rows > 256))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata store box of %u rows",
                        m->store_box_rows);
  /* (the timing proxy of an sm_100a stream-K variant keeps its workspace: the partial
   * sums; the tcgen05 emulation cannot have one, its Tensor Memory is the workspace) */
  if ((m->variant_flags & NVFP4_META_VFLAG_STREAM_K) &&
      (m->cta_group != 1 || m->workspace_per_cta == 0 || m->form != NVFP4_META_FORM_POINTER_ARRAY ||
       (m->flags & (NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_EMULATION_MMA_SYNC))))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata: a stream-K kernel has one CTA per cluster, the pointer-array "
                        "form, a workspace (%u bytes per CTA) and no emulation",
                        m->workspace_per_cta);
  if (m->variant_flags & ~(NVFP4_META_VFLAG_DYNAMIC_N | NVFP4_META_VFLAG_BALANCED_N |
                           NVFP4_META_VFLAG_STREAM_K | NVFP4_META_VFLAG_SWIGLU_MID_ATOM))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED, "metadata variant flags 0x%x: unknown bits",
                        m->variant_flags);
  if ((m->variant_flags & NVFP4_META_VFLAG_BALANCED_N) &&
      !(m->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata variant flags 0x%x: BALANCED_N without DYNAMIC_N",
                        m->variant_flags);
  if ((m->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N) &&
      (m->n_align == 0 || m->n_align > m->tile_n || m->tile_n % m->n_align != 0))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata n_align %u for tile_n %u",
                        m->n_align, m->tile_n);
  /* the plans hold NVFP4_ABI_MOE_MAX_TMAPS map slots: a longer box ladder (an n_align far
   * below tile_n) would leave maps the kernel reads unencoded */
  if (m->form == NVFP4_META_FORM_CONTIGUOUS && nvfp4rt_moe_tmap_count(m) > NVFP4_ABI_MOE_MAX_TMAPS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata: a contiguous-form kernel with %u tensor maps (n_align %u for "
                        "tile_n %u), at most %u", nvfp4rt_moe_tmap_count(m), m->n_align,
                        m->tile_n, NVFP4_ABI_MOE_MAX_TMAPS);
  if (m->form == NVFP4_META_FORM_CONTIGUOUS && m->param_bytes != NVFP4_ABI_MOE_PARAM_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata param_bytes %u != %u (the contiguous form's header and "
                        "problem record)", m->param_bytes, NVFP4_ABI_MOE_PARAM_BYTES);
  if (m->form == NVFP4_META_FORM_CONTIGUOUS && (m->flags & NVFP4_META_FLAG_PATCH_TMAPS))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata: a contiguous-form kernel cannot patch tensor maps");
  if (m->flags & ~(NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_PROXY | NVFP4_META_FLAG_PATCH_TMAPS |
                   NVFP4_META_FLAG_EMULATION_MMA_SYNC | NVFP4_META_FLAG_PDL |
                   NVFP4_META_FLAG_DEBUG_ACTIVATIONS))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED, "metadata flags 0x%x: unknown bits",
                        m->flags);
  const uint32_t kinds = m->flags & (NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_PROXY |
                                     NVFP4_META_FLAG_EMULATION_MMA_SYNC);
  if (kinds & (kinds - 1))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata flags 0x%x: more than one of the emulation, mma.sync emulation "
                        "and proxy flags", m->flags);
  if ((m->flags & NVFP4_META_FLAG_EMULATION_MMA_SYNC) &&
      (m->target_sm != 90 || m->workspace_per_cta != 0))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "mma.sync-emulation cubin with target_sm %u and %u bytes of workspace per "
                        "CTA (expected sm 90, none)", m->target_sm, m->workspace_per_cta);
  if ((m->flags & NVFP4_META_FLAG_PROXY) &&
      (m->target_sm != 90 ||
       (m->workspace_per_cta != 0 && !(m->variant_flags & NVFP4_META_VFLAG_STREAM_K))))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "timing-proxy cubin with target_sm %u and %u bytes of workspace per CTA "
                        "(expected sm 90, none but a stream-K variant's)", m->target_sm,
                        m->workspace_per_cta);
  if ((m->flags & NVFP4_META_FLAG_EMULATION) && m->workspace_per_cta == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "emulation cubin declares no workspace_per_cta");
  const nvfp4_target_info *target = nvfp4_target_find(m->target);
  if (!target)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TARGET_MISMATCH,
                        "metadata target '%s' (sm %u) unsupported (this runtime knows %s)",
                        m->target, m->target_sm, nvfp4_target_names());
  if (target->target_sm != m->target_sm)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TARGET_MISMATCH,
                        "metadata target '%s' with target_sm %u (expected %u)", m->target,
                        m->target_sm, target->target_sm);
  nvfp4rt_status st = check_source_target(m);
  if (st != NVFP4RT_STATUS_OK) return st;
  /* the cost model's constants (KernelConfig.h): a decode worth at most a few tiles of token
   * rows, a share of at most the whole row */
  if (m->cost_decode_rows > NVFP4RT_MAX_COST_DECODE_ROWS || m->cost_token_share > 1000)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata cost model: decode rows %u (at most %u), token share %u per "
                        "mille (at most 1000)", m->cost_decode_rows, NVFP4RT_MAX_COST_DECODE_ROWS,
                        m->cost_token_share);
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_metadata_decode_table(const unsigned char *rec, size_t size,
                                             nvfp4rt_metadata_table *t) {
  if (!rec || !t) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "metadata_decode_table: NULL");
  memset(t, 0, sizeof *t);
  if (size < NVFP4_METADATA_BYTES || size % NVFP4_METADATA_BYTES != 0 ||
      size / NVFP4_METADATA_BYTES > NVFP4_METADATA_MAX_VARIANTS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "metadata table of %zu bytes: not 1..%u records of %u bytes", size,
                        NVFP4_METADATA_MAX_VARIANTS, NVFP4_METADATA_BYTES);
  uint32_t n = (uint32_t)(size / NVFP4_METADATA_BYTES);
  for (uint32_t i = 0; i < n; i++) {
    nvfp4_kernel_metadata *m = &t->variants[i];
    nvfp4rt_status st = nvfp4rt_metadata_decode(rec + (size_t)i * NVFP4_METADATA_BYTES,
                                                NVFP4_METADATA_BYTES, m);
    if (st != NVFP4RT_STATUS_OK) return st;
    const nvfp4_kernel_metadata *m0 = &t->variants[0];
    if (m->variant_count != n || m->variant_index != i)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                          "metadata record %u says variant %u of %u in a table of %u", i,
                          m->variant_index, m->variant_count, n);
    if (m->target_sm != m0->target_sm || m->flags != m0->flags ||
        m->max_groups != m0->max_groups ||
        m->param_bytes != m0->param_bytes ||
        m->k_granule != m0->k_granule ||
        /* (a stream-K variant's workspace is its own; the runtime sizes it per variant) */
        (!((m->variant_flags | m0->variant_flags) & NVFP4_META_VFLAG_STREAM_K) &&
         m->workspace_per_cta != m0->workspace_per_cta) ||
        m->form != m0->form || m->c_type != m0->c_type ||
        m->epilogue_flags != m0->epilogue_flags || strcmp(m->target, m0->target) != 0 ||
        strcmp(m->source_target, m0->source_target) != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                          "metadata record %u disagrees with record 0 on the kernel ABI", i);
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(t->variants[j].kernel_name, m->kernel_name) == 0)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "metadata names kernel '%s' twice",
                            m->kernel_name);
  }
  t->count = n;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_metadata_read_image(const void *image, size_t size,
                                           nvfp4rt_metadata_table *out) {
  const unsigned char *rec;
  size_t n;
  nvfp4rt_status st = nvfp4rt_elf_find_metadata(image, size, &rec, &n);
  if (st != NVFP4RT_STATUS_OK) return st;
  return nvfp4rt_metadata_decode_table(rec, n, out);
}

nvfp4rt_status nvfp4rt_metadata_read_file(const char *path, nvfp4rt_metadata_table *out) {
  void *data;
  size_t size;
  nvfp4rt_status st = nvfp4rt_read_whole_file(path, &data, &size);
  if (st != NVFP4RT_STATUS_OK) return st;
  st = nvfp4rt_metadata_read_image(data, size, out);
  free(data);
  return st;
}

/* "10.0 and 10.3": the compute capabilities target t runs on. */
static void runs_on_text(const nvfp4_target_info *t, char *out, size_t size) {
  size_t n = 0;
  out[0] = 0;
  for (uint32_t minor = 0; minor < 32 && n < size; ++minor)
    if ((t->cc_minors >> minor) & 1u)
      n += (size_t)snprintf(out + n, size - n, "%s%u.%u", n ? " and " : "", t->cc_major, minor);
}

/* What to compile instead, for a cubin of target t on a device of major.minor: per
 * generator, advice for a device of the target's own family, for an sm_90 device, else. */
static const char *target_advice(const nvfp4_target_info *t, int major) {
  static const struct { uint32_t generator; const char *family, *hopper, *other; } kAdvice[] = {
      {NVFP4_TARGET_GEN_TCGEN05,
       "compile target sm_100f for every B200 / B300 part, or the device's own sm_100a / sm_103a",
       "tcgen05 kernels need a Blackwell B200/B300 (compile the emulation target for sm_90)",
       "tcgen05 kernels need a Blackwell B200/B300"},
      {NVFP4_TARGET_GEN_MMA_SYNC,
       "compile target sm_120f for every RTX 50 / RTX PRO / DGX Spark part, or the device's own "
       "sm_120a / sm_121a",
       "mma.sync kernels of sm_12x need such a GPU (compile with --emulate for sm_90)",
       "compile the target of the device"}};
  for (size_t i = 0; i < sizeof kAdvice / sizeof kAdvice[0]; ++i)
    if (kAdvice[i].generator == t->generator)
      return major == (int)t->cc_major ? kAdvice[i].family
             : major == 9              ? kAdvice[i].hopper
                                       : kAdvice[i].other;
  return "arch-specific 'a' targets run only on their exact architecture";
}

nvfp4rt_status nvfp4rt_metadata_check_target(const nvfp4_kernel_metadata *meta, int major,
                                             int minor) {
  if (!meta) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "metadata is NULL");
  /* the caller's struct need not hold a terminated target string: read at most its array */
  const int tlen = (int)strnlen(meta->target, NVFP4_META_TARGET_BYTES);
  const nvfp4_target_info *t = nvfp4_target_find_n(meta->target, (size_t)tlen);
  /* an unknown target string: the exact architecture of target_sm */
  const nvfp4_target_info exact = {"", 99u, meta->target_sm, "", meta->target_sm / 10u,
                                   1u << (meta->target_sm % 10u), "", 1};
  if (!t) t = &exact;
  if (nvfp4_target_runs_on(t, major, minor)) return NVFP4RT_STATUS_OK;
  char runs[48];
  runs_on_text(t, runs, sizeof runs);
  return NVFP4RT_FAIL(NVFP4RT_STATUS_TARGET_MISMATCH,
                      "cubin targets %.*s (sm_%u%s; runs on compute capability %s) but the device "
                      "is sm_%d%d (compute capability %d.%d); %s",
                      tlen, meta->target, meta->target_sm,
                      (meta->flags & NVFP4_META_FLAG_EMULATION)            ? ", tcgen05 emulation"
                      : (meta->flags & NVFP4_META_FLAG_EMULATION_MMA_SYNC) ? ", mma.sync emulation"
                      : (meta->flags & NVFP4_META_FLAG_PROXY)              ? ", timing proxy"
                                                                            : "",
                      runs, major, minor, major, minor, target_advice(t, major));
}

nvfp4rt_status nvfp4rt_metadata_encode(const nvfp4_kernel_metadata *m,
                                       unsigned char rec[NVFP4_METADATA_BYTES]) {
  if (!m || !rec)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "metadata_encode: %s is NULL",
                        !m ? "metadata" : "record");
  memset(rec, 0, NVFP4_METADATA_BYTES);
#define F(field, off) nvfp4_meta_write_u32(rec, NVFP4_META_##off, m->field);
  NVFP4_META_U32_FIELDS(F)
#undef F
  size_t n = strnlen(m->kernel_name, NVFP4_META_KERNEL_NAME_BYTES - 1);
  memcpy(rec + NVFP4_META_KERNEL_NAME, m->kernel_name, n);
  n = strnlen(m->target, NVFP4_META_TARGET_BYTES - 1);
  memcpy(rec + NVFP4_META_TARGET, m->target, n);
  n = strnlen(m->source_target, NVFP4_META_SOURCE_TARGET_BYTES - 1);
  memcpy(rec + NVFP4_META_SOURCE_TARGET, m->source_target, n);
  return NVFP4RT_STATUS_OK;
}
