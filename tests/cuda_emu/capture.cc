/* The emulator's stream capture and graphs (emu.h's model): while a stream
 * captures, the work issued on it is recorded instead of run; a graph is
 * the records, and launching its instance runs them in order. */
#include "capture.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

struct CUgraph_st {
    std::vector<std::function<void()>> records;
};

struct CUgraphExec_st {
    std::vector<std::function<void()>> records;
};

namespace rf_emu {

namespace {

/* The one capture in progress (the emulator's limit), under capture_mutex. */
struct capture {
    cudaStream_t stream;
    cudaStreamCaptureMode mode;
    std::thread::id thread;   /* the one that began it */
    bool invalid;             /* a forbidden call was made: EndCapture gives no graph */
    std::vector<std::function<void()>> records;
};

std::mutex capture_mutex;
capture *active;

std::atomic<unsigned long long> host_launches, host_copies, captured, replayed, graph_launches;

}   // namespace

counters counts(void)
{
    return {host_launches.load(), host_copies.load(), captured.load(), replayed.load(), graph_launches.load()};
}

cudaError_t forbidden_in_capture(cudaError_t e)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    if (active == nullptr)
        return cudaSuccess;
    active->invalid = true;
    return e;
}

cudaError_t unsafe_in_capture(cudaError_t e)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    if (active == nullptr || active->mode == cudaStreamCaptureModeRelaxed ||
        (active->mode == cudaStreamCaptureModeThreadLocal && active->thread != std::this_thread::get_id()))
        return cudaSuccess;
    active->invalid = true;
    return e;
}

bool capturing(cudaStream_t stream)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    return active != nullptr && active->stream == stream;
}

cudaError_t issue(cudaStream_t stream, work kind, std::function<void()> w)
{
    {
        std::lock_guard<std::mutex> hold(capture_mutex);
        if (active != nullptr && stream == nullptr) {   /* the legacy stream waits for the capturing one */
            active->invalid = true;
            return cudaErrorStreamCaptureImplicit;
        }
        if (active != nullptr && active->stream == stream) {
            if (active->invalid)
                return cudaErrorStreamCaptureInvalidated;
            active->records.push_back(std::move(w));
            captured++;
            return cudaSuccess;
        }
    }
    w();
    (kind == work::launch ? host_launches : host_copies)++;
    return cudaSuccess;
}

}   // namespace rf_emu

using rf_emu::active;
using rf_emu::capture_mutex;

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    if (stream == nullptr)   /* the legacy stream cannot be captured */
        return cudaErrorStreamCaptureUnsupported;
    if (active != nullptr)
        return active->stream == stream ? cudaErrorIllegalState : cudaErrorStreamCaptureUnsupported;
    active = new rf_emu::capture{stream, mode, std::this_thread::get_id(), false, {}};
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    if (active == nullptr || active->stream != stream)
        return cudaErrorIllegalState;
    rf_emu::capture *c = active;
    active = nullptr;
    bool invalid = c->invalid;
    *graph = invalid ? nullptr : new CUgraph_st{std::move(c->records)};
    delete c;
    return invalid ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status)
{
    std::lock_guard<std::mutex> hold(capture_mutex);
    if (active != nullptr && stream == nullptr) {
        active->invalid = true;
        return cudaErrorStreamCaptureImplicit;
    }
    bool mine = active != nullptr && active->stream == stream;
    *status = !mine ? cudaStreamCaptureStatusNone
                    : active->invalid ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    if (graph == nullptr || flags != 0)
        return cudaErrorInvalidValue;
    *exec = new CUgraphExec_st{graph->records};
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (exec == nullptr)
        return cudaErrorInvalidValue;
    {
        std::lock_guard<std::mutex> hold(capture_mutex);
        if (active != nullptr && stream == nullptr) {
            active->invalid = true;
            return cudaErrorStreamCaptureImplicit;
        }
        if (active != nullptr && active->stream == stream) {   /* a child graph node: not emulated */
            active->invalid = true;
            return cudaErrorStreamCaptureUnsupported;
        }
    }
    rf_emu::graph_launches++;
    for (const std::function<void()> &r : exec->records) {
        r();
        rf_emu::replayed++;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    delete exec;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    delete graph;
    return cudaSuccess;
}
