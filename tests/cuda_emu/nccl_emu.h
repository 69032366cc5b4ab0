/* The part of NCCL the backend uses (kernels/nccl_compat.h), emulated for
 * the CPU emulator: device memory is host memory there, so an all-reduce
 * waits for the stream and sums over the ranks of an MPI job through the
 * host collective (core/collective.h) that rf_nccl_emu_transport names.
 * Same calls, same results as NCCL's; no GPU or NCCL needed. */
#ifndef RF_NCCL_EMU_H
#define RF_NCCL_EMU_H

#include <stddef.h>

#include "emu.h"

struct rf_collective;

typedef struct ncclComm *ncclComm_t;
typedef struct {
    char internal[128];
} ncclUniqueId;
typedef enum { ncclSuccess = 0, ncclSystemError = 2, ncclInvalidArgument = 4, ncclInvalidUsage = 5 } ncclResult_t;
typedef enum { ncclFloat = 7 } ncclDataType_t;
typedef enum { ncclSum = 0, ncclAvg = 4 } ncclRedOp_t;

ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
const char *ncclGetErrorString(ncclResult_t r);

/* The emulator's own: the host collective the emulated communicators send
 * through (before ncclCommInitRank). */
void rf_nccl_emu_transport(struct rf_collective *c);

#endif
