// Every call of the C API and the Python module is collective, and its arguments come from the
// program on each rank, not from one command line agreed at start-up as ddlrun's are. Ranks
// that call with different counts, dtypes, ops or algorithms would run different schedules:
// a receive shorter than the message corrupts memory inside Open MPI (its shared-memory
// transport copies the whole message before it reports MPI_ERR_TRUNCATE), different ops or
// equal sizes give a wrong result silently. So before any data moves, the ranks compare their
// call signatures (call_signature.hpp) and every rank learns of a difference.
//
// Cost: one recursive-doubling allreduce of two 8-byte words (the signature's hash, as minimum
// and maximum at once), through the communicator's own polled point-to-point messages:
// log2(p) exchanges of 16 bytes. Only when the hashes differ do the ranks gather the texts
// (rank_agreement.hpp) to say what differs.
#pragma once

#include "algorithms/error.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/rank_agreement.hpp"

namespace ddl {

// The tag of the agreement's messages: the highest tag MPI guarantees, far above the tags the
// algorithms use (tag_base 0 plus one per concurrent schedule).
constexpr int kCallAgreementTag = 32767;

// Collective over `comm`, before the call's data moves. `mine`: this rank's call signature
// (canonical), or why this rank could not make the call (error). Returns when every rank passed
// the same text, or when this rank's own call failed (the caller then reports its own error).
// Otherwise throws RanksDisagree "ranks disagree on the call: rank 1 has count 1000000, rank 0
// has count 1000" (the lowest rank that differs from rank 0), or "... rank 1 could not make
// the call: WHY" (the lowest rank that failed); every rank gets the same text. Every wait is
// bounded by comm.timeout(): a rank that never calls ends in ddl::Timeout naming the peer.
void agree_on_call(MpiCommunicator& comm, const LocalArguments& mine);

}  // namespace ddl
