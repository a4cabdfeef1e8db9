#ifndef PREFETCHD_SHIMS_SYSTEM_H
#define PREFETCHD_SHIMS_SYSTEM_H

/* Linux constants Swift does not import: O_TMPFILE is built from two macros whose values differ by
   architecture, O_PATH, AT_EMPTY_PATH and SCHED_BATCH need _GNU_SOURCE. 0 / -1 where the C library
   does not define them. */
int pf_open_flag_tmpfile(void);
int pf_open_flag_path(void);
int pf_at_flag_empty_path(void);
int pf_sched_policy_batch(void);
/* 1 when the signal's action is to ignore it (as `nohup` or a shell's background job leaves SIGHUP or
   SIGINT), which Swift cannot compare its handler pointer against. */
int pf_signal_is_ignored(int number);
/* Sets the calling thread's nice value (on Linux a nice value is a thread's own: setpriority on its
   thread id). 0 when it took. */
int pf_set_thread_niceness(int niceness);

#endif
