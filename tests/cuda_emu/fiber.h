/* User-level fibers for the CUDA emulator: each emulated thread of a block
 * runs on its own stack, on the launching host thread, and gives control
 * back to the host only where it calls fiber::yield (block.cc's barriers).
 * Internal to tests/cuda_emu. */
#ifndef RF_CUDA_EMU_FIBER_H
#define RF_CUDA_EMU_FIBER_H

#include <stddef.h>

namespace rf_emu {

class fiber {
public:
    /* The fiber with this index, created (with its stack) the first time
     * it is asked for and kept for the rest of the process. Its body calls
     * main() again and again, yielding after each return; call only under
     * the launch lock (fibers are shared by every host thread). */
    static fiber &get(unsigned index, void (*main)(void));

    /* From the host: runs the fiber until it yields. */
    void resume(void);
    /* From the fiber: back to the host that resumed it. */
    void yield(void);

    fiber(const fiber &) = delete;
    fiber &operator=(const fiber &) = delete;

private:
    explicit fiber(void (*main)(void));
    [[noreturn]] static void entry(fiber *self);

    void (*main_)(void);
    void *sp_ = nullptr;        /* the fiber's saved stack pointer while it is not running */
    void *host_sp_ = nullptr;   /* the host's while the fiber runs */
    unsigned char *stack_;      /* lowest usable byte; a guard page lies below */
    /* AddressSanitizer's view of the switches: the fake stacks each side
     * keeps, and the host stack to announce on the way back */
    void *fake_stack_ = nullptr, *host_fake_stack_ = nullptr;
    const void *host_bottom_ = nullptr;
    size_t host_size_ = 0;
};

}   // namespace rf_emu

#endif
