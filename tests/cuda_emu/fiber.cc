/* The emulator's fibers (fiber.h): stacks and the switch between a fiber
 * and the host. */
#include "fiber.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define RF_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RF_EMU_ASAN 1
#endif
#endif
#ifdef RF_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__)
#error "the CUDA emulator's fibers switch stacks only on x86-64 (tests/cuda_emu/fiber.cc)"
#endif

namespace rf_emu {
namespace {

/* Each fiber's stack. The kernels' frames are small (a few local arrays of
 * at most 4 int64s, no recursion), as are the frames between them and the
 * fiber's entry (std::function, std::apply): the CUDA tests touch one
 * 4 KiB page of a stack, two under ASan, whose frames carry redzones
 * (measured from the stacks' resident pages at exit). The deepest path is
 * an error's report: fprintf, or ASan's report with its symbolised stack,
 * a few tens of KiB. 256 KiB leaves several times that and costs only
 * address space: pages are touched lazily, so 1,024 fibers hold a few
 * MiB. An overflow hits the guard page below. */
constexpr size_t stack_bytes = 256 * 1024;

/* Announces a switch to AddressSanitizer, so it knows which stack is
 * running (its reports and no-return handling depend on it). */
void start_switch(void **fake_stack, const void *bottom, size_t size)
{
#ifdef RF_EMU_ASAN
    __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
    (void)fake_stack, (void)bottom, (void)size;
#endif
}

void finish_switch(void *fake_stack, const void **bottom_old, size_t *size_old)
{
#ifdef RF_EMU_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
    (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

}   // namespace
}   // namespace rf_emu

/* switch(save, to): pushes the callee-saved registers, stores the stack
 * pointer in *save, takes `to` as the stack pointer and pops the registers
 * saved there. (MXCSR and the x87 control word, callee-saved too, are left
 * alone: nothing here changes them.) A new fiber's stack holds its fiber
 * in r12, its entry in r13 and rf_emu_fiber_start as the return address. */
asm(".text\n"
    ".p2align 4\n"
    ".type rf_emu_fiber_switch, @function\n"
    "rf_emu_fiber_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size rf_emu_fiber_switch, .-rf_emu_fiber_switch\n"
    ".p2align 4\n"
    ".type rf_emu_fiber_start, @function\n"
    "rf_emu_fiber_start:\n"
    "    movq %r12, %rdi\n"
    "    callq *%r13\n"
    "    ud2\n"
    ".size rf_emu_fiber_start, .-rf_emu_fiber_start\n");
extern "C" void rf_emu_fiber_switch(void **save, void *to);
extern "C" void rf_emu_fiber_start(void);

namespace rf_emu {

fiber::fiber(void (*main)(void)) : main_(main)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *m = mmap(nullptr, page + stack_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0) {
        fprintf(stderr, "cuda emulator: cannot map a %zu KiB fiber stack\n", stack_bytes / 1024);
        abort();
    }
    stack_ = static_cast<unsigned char *>(m) + page;
    /* the frame rf_emu_fiber_switch pops: r15 r14 r13 r12 rbx rbp, then
     * the return address; rf_emu_fiber_start then calls entry with the
     * stack 16-byte aligned, as the ABI wants at a call */
    uintptr_t top = (uintptr_t)(stack_ + stack_bytes) & ~(uintptr_t)15;
    void **frame = reinterpret_cast<void **>(top - 72);
    frame[0] = frame[1] = frame[4] = frame[5] = nullptr;
    frame[2] = reinterpret_cast<void *>(&fiber::entry);   /* r13 */
    frame[3] = this;                                      /* r12 */
    frame[6] = reinterpret_cast<void *>(&rf_emu_fiber_start);
    frame[7] = frame[8] = nullptr;
    sp_ = frame;
}

fiber &fiber::get(unsigned index, void (*main)(void))
{
    /* never freed: parked fibers live as long as the process (and a
     * pointer in static storage keeps LeakSanitizer content) */
    static std::vector<fiber *> &fibers = *new std::vector<fiber *>;
    while (fibers.size() <= index)
        fibers.push_back(new fiber(main));
    return *fibers[index];
}

/* The fiber's first frame. It reads nothing thread-local: a parked fiber
 * may be resumed by another host thread in a later launch, and the
 * compiler may keep a thread-local variable's address across a call. */
void fiber::entry(fiber *self)
{
    finish_switch(nullptr, &self->host_bottom_, &self->host_size_);
    for (;;) {
        self->main_();
        self->yield();
    }
}

void fiber::resume(void)
{
    start_switch(&host_fake_stack_, stack_, stack_bytes);
    rf_emu_fiber_switch(&host_sp_, sp_);
    finish_switch(host_fake_stack_, nullptr, nullptr);
}

void fiber::yield(void)
{
    start_switch(&fake_stack_, host_bottom_, host_size_);
    rf_emu_fiber_switch(&sp_, host_sp_);
    finish_switch(fake_stack_, &host_bottom_, &host_size_);
}

}   // namespace rf_emu
