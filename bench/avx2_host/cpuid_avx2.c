/* LD_PRELOAD shim: make this process see a CPU without AVX-512 (an "AVX2-only host").
 *
 * Why: our CPU kernels can be capped with TURBOFNO_CPU_ISA=avx2, but the other libraries in a
 * benchmark (ONNX Runtime's MLAS for the Conv / Gelu of an unfused chain, numpy) would still pick
 * their AVX-512 code, so "ours on AVX2 vs the chain" on an AVX-512 machine is not what an AVX2-only
 * host measures. Every library decides from the CPUID instruction; Linux can make CPUID fault
 * (arch_prctl ARCH_SET_CPUID, on CPUs with the cpuid_fault flag), so this shim turns faulting on at
 * load time, runs the real CPUID in the SIGSEGV handler and clears the AVX-512 (and AMX) feature
 * bits in what it returns. The microarchitecture stays the host's: only the instruction-set choice
 * of every library in the process is that of an AVX2-only machine.
 *
 * Setting is per thread and inherited by threads created later; execve resets it (child processes
 * are not affected). Other SIGSEGV handlers installed later (Python's faulthandler, ...) are kept
 * behind ours: sigaction/signal for SIGSEGV are interposed and a fault that is not a CPUID goes to
 * the application's handler (or the default action).
 *
 * Use through bench/avx2_host/run.sh. Build: cc -O2 -shared -fPIC -o cpuid_avx2.so cpuid_avx2.c -ldl
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;
static struct sigaction app_segv; /* what the application asked for SIGSEGV (SIG_DFL at first) */
static volatile long faults_served;

/* Leaf 7 subleaf 0: EBX AVX512F/DQ/IFMA/PF/ER/CD/BW/VL; ECX VBMI/VBMI2/VNNI/BITALG/VPOPCNTDQ;
 * EDX 4VNNIW/4FMAPS/VP2INTERSECT/FP16 and AMX-BF16/TILE/INT8. Leaf 7 subleaf 1: EAX AVX512_BF16. */
#define BIT(n) (1u << (n))
static const uint32_t kLeaf7Ebx = BIT(16) | BIT(17) | BIT(21) | BIT(26) | BIT(27) | BIT(28) | BIT(30) | BIT(31);
static const uint32_t kLeaf7Ecx = BIT(1) | BIT(6) | BIT(11) | BIT(12) | BIT(14);
static const uint32_t kLeaf7Edx = BIT(2) | BIT(3) | BIT(8) | BIT(22) | BIT(23) | BIT(24) | BIT(25);
static const uint32_t kLeaf7s1Eax = BIT(5);

static int set_cpuid_enabled(int enabled) { return (int)syscall(SYS_arch_prctl, ARCH_SET_CPUID, enabled); }

static void real_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static void masked_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  real_cpuid(leaf, sub, r);
  if (leaf == 7 && sub == 0) {
    r[1] &= ~kLeaf7Ebx;
    r[2] &= ~kLeaf7Ecx;
    r[3] &= ~kLeaf7Edx;
  } else if (leaf == 7 && sub == 1) {
    r[0] &= ~kLeaf7s1Eax;
  }
}

static void forward_to_app(int sig, siginfo_t *info, void *ctx) {
  if (app_segv.sa_flags & SA_SIGINFO) {
    if (app_segv.sa_sigaction) {
      app_segv.sa_sigaction(sig, info, ctx);
      return;
    }
  } else if (app_segv.sa_handler != SIG_DFL && app_segv.sa_handler != SIG_IGN) {
    app_segv.sa_handler(sig);
    return;
  }
  /* default action: uninstall ourselves and return; the faulting instruction re-runs and kills. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  real_sigaction(SIGSEGV, &dfl, NULL);
}

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  ucontext_t *uc = (ucontext_t *)ctx;
  const uint8_t *rip = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
  /* A CPUID fault is a #GP delivered as SI_KERNEL with no address; only then is RIP readable as code. */
  if (info->si_code == SI_KERNEL && rip[0] == 0x0F && rip[1] == 0xA2) {
    uint32_t r[4];
    set_cpuid_enabled(1);
    masked_cpuid((uint32_t)uc->uc_mcontext.gregs[REG_RAX], (uint32_t)uc->uc_mcontext.gregs[REG_RCX], r);
    set_cpuid_enabled(0);
    uc->uc_mcontext.gregs[REG_RAX] = r[0];
    uc->uc_mcontext.gregs[REG_RBX] = r[1];
    uc->uc_mcontext.gregs[REG_RCX] = r[2];
    uc->uc_mcontext.gregs[REG_RDX] = r[3];
    uc->uc_mcontext.gregs[REG_RIP] += 2;
    ++faults_served;
    return;
  }
  forward_to_app(sig, info, ctx);
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  real_sigaction(SIGSEGV, &sa, NULL);
}

/* Interposed: the application's SIGSEGV handler is recorded, ours stays installed. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (!real_sigaction) real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  if (sig != SIGSEGV) return real_sigaction(sig, act, old);
  if (old) *old = app_segv;
  if (act) app_segv = *act;
  return 0;
}

sighandler_t signal(int sig, sighandler_t handler) {
  if (sig != SIGSEGV) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) != 0) return SIG_ERR;
    return old.sa_handler;
  }
  sighandler_t previous = (app_segv.sa_flags & SA_SIGINFO) ? SIG_DFL : app_segv.sa_handler;
  memset(&app_segv, 0, sizeof app_segv);
  app_segv.sa_handler = handler;
  return previous;
}

__attribute__((constructor)) static void cpuid_avx2_init(void) {
  real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  app_segv.sa_handler = SIG_DFL;
  install();
  if (set_cpuid_enabled(0) != 0) {
    fprintf(stderr, "cpuid_avx2: arch_prctl(ARCH_SET_CPUID, 0) failed: this CPU / kernel has no CPUID faulting "
                    "(no cpuid_fault in /proc/cpuinfo); cannot emulate an AVX2-only host\n");
    _exit(3);
  }
  uint32_t r[4];
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(7), "c"(0));
  if ((r[1] & BIT(16)) || faults_served != 1) {
    fprintf(stderr, "cpuid_avx2: self-check failed (AVX512F still visible or CPUID did not fault)\n");
    _exit(3);
  }
  if (getenv("CPUID_AVX2_QUIET") == NULL)
    fprintf(stderr, "cpuid_avx2: CPUID faulting on, AVX-512 / AMX hidden from this process (pid %d)\n", getpid());
}
