#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include "CShimsSystem.h"

int pf_open_flag_tmpfile(void) {
#ifdef O_TMPFILE
    return O_TMPFILE;
#else
    return 0;
#endif
}

int pf_open_flag_path(void) {
#ifdef O_PATH
    return O_PATH;
#else
    return 0;
#endif
}

int pf_at_flag_empty_path(void) {
#ifdef AT_EMPTY_PATH
    return AT_EMPTY_PATH;
#else
    return 0;
#endif
}

int pf_sched_policy_batch(void) {
#ifdef SCHED_BATCH
    return SCHED_BATCH;
#else
    return -1;
#endif
}

int pf_signal_is_ignored(int number) {
    struct sigaction current;
    if (sigaction(number, NULL, &current) != 0) return 0;
    return !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN;
}

#include <sys/resource.h>
#include <unistd.h>

int pf_set_thread_niceness(int niceness) {
    return setpriority(PRIO_PROCESS, (id_t)gettid(), niceness);
}
