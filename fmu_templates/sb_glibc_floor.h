/*
 * sb_glibc_floor.h -- forced-include header (gcc/clang -include) of symbody's
 * Linux builds: binds the math functions whose default symbol version is newer
 * than GLIBC_2.17 to their older versions, so that an FMU built on a recent
 * distribution loads on glibc 2.17 and later (RHEL/CentOS 7, Ubuntu 18.04).
 *
 * glibc 2.27 and 2.29 gave exp, log, pow, exp2, log2 (and their float
 * variants) faster implementations under new symbol versions; the old versions
 * remain in every later libm and compute the same functions to within the
 * documented accuracy of libm (a few ulp).
 *
 * Not shipped in sources/: an importer rebuilding the FMU links against its own libm.
 */
#ifndef SB_GLIBC_FLOOR_H
#define SB_GLIBC_FLOOR_H

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__x86_64__) && !defined(__ILP32__)
#define SB_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SB_GLIBC_BASE "GLIBC_2.17"
#endif
#endif

#ifdef SB_GLIBC_BASE
#define SB_OLD_SYMBOL(f) __asm__(".symver " #f "," #f "@" SB_GLIBC_BASE);
SB_OLD_SYMBOL(exp)
SB_OLD_SYMBOL(log)
SB_OLD_SYMBOL(pow)
SB_OLD_SYMBOL(exp2)
SB_OLD_SYMBOL(log2)
SB_OLD_SYMBOL(expf)
SB_OLD_SYMBOL(logf)
SB_OLD_SYMBOL(powf)
SB_OLD_SYMBOL(exp2f)
SB_OLD_SYMBOL(log2f)
#undef SB_OLD_SYMBOL
#endif

#endif /* SB_GLIBC_FLOOR_H */
