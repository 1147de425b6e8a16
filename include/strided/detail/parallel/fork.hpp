// Fork safety. A process that forks (Python data loaders do) keeps only the forking thread in the
// child: any lock another thread held at that moment would stay held forever there, and pool
// workers are gone. Each piece of process-wide state registers handlers once, when it is built:
// `prepare` takes its lock (so its tables are consistent at the fork), `parent` releases it,
// `child` releases it and forgets what died with the other threads.
#pragma once

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define STRIDED_DETAIL_HAVE_ATFORK 1
#else
#define STRIDED_DETAIL_HAVE_ATFORK 0
#endif

namespace strided::detail {

using ForkHandler = void (*)();

/// pthread_atfork where it exists; nothing elsewhere (no fork there).
inline void register_fork_handlers(ForkHandler prepare, ForkHandler parent,
                                   ForkHandler child) noexcept {
#if STRIDED_DETAIL_HAVE_ATFORK
  ::pthread_atfork(prepare, parent, child);
#else
  (void)prepare;
  (void)parent;
  (void)child;
#endif
}

}  // namespace strided::detail
