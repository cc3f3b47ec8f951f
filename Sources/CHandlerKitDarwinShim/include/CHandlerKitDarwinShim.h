// The few calls of Apple's libSystem that the SQLite signal store makes, under names of this module
// (`hk_…`) so that they never collide with the system's. On Apple platforms each maps to the system
// call; on Linux each is implemented here with the same behaviour as far as the store relies on it,
// so the store's Swift code is one path on every platform and the tests on Linux run it.
#ifndef CHANDLERKIT_DARWIN_SHIM_H
#define CHANDLERKIT_DARWIN_SHIM_H

// MARK: Wake-ups between the processes of a store

/// Wakes every process registered for the store whose wake file is `path`.
/// Apple platforms: `notify_post` of the store's notification name (made from `path`).
/// Linux: writes one byte into the wake file, opened for this call only; a missing wake file has no
/// listener to wake (each listener makes it again when it is lost).
/// Returns 0, or -1 with `errno` set.
int hk_notify_post(const char *path);

/// 1 where wake-ups go through the wake file (Linux), which the store then makes before it
/// registers; 0 where they are Darwin notifications and no wake file is used.
#if defined(__APPLE__)
#define HK_NOTIFY_USES_WAKE_FILE 0
#else
#define HK_NOTIFY_USES_WAKE_FILE 1
#endif

/// Registers for the wake-ups of the store whose wake file is `path`: `*out_fd` (non-blocking)
/// becomes readable at each; `*out_token` identifies the registration.
/// Apple platforms: `notify_register_file_descriptor`. Linux: an inotify watch on the wake file,
/// which must exist.
/// Returns 0, or -1 with `errno` set (nothing is left open).
int hk_notify_register_file_descriptor(const char *path, int *out_fd, int *out_token);

/// Reads what is pending on a registration's descriptor. Returns 1 when the wake file was deleted or
/// replaced (Linux: make it again if needed, then `hk_notify_rewatch`), else 0.
int hk_notify_drain(int fd);

/// Watches the file now at `path` after `hk_notify_drain` returned 1. Returns 1 when it is another
/// file than the one watched so far (`*token` is updated), 0 when it is the same one (its attributes
/// changed), -1 with `errno` set when it cannot be watched. Apple platforms: returns 0.
int hk_notify_rewatch(const char *path, int fd, int *token);

/// Ends a registration and closes its descriptor (`notify_cancel` on Apple platforms).
void hk_notify_cancel(int fd, int token);

// MARK: Data protection

/// The data protection classes of Apple platforms, with their values there.
enum {
    HK_PROTECTION_COMPLETE = 1,  // class A: readable only while the device is unlocked
    HK_PROTECTION_COMPLETE_UNLESS_OPEN = 2,  // class B: stays readable while open; new files writable
    HK_PROTECTION_UNTIL_FIRST_AUTHENTICATION = 3,  // class C: readable from the first unlock on
    HK_PROTECTION_NONE = 4,  // class D: always readable
};

/// Sets the data protection class of the open file or folder `fd`.
/// Apple platforms: `fcntl(F_SETPROTECTIONCLASS)`; a volume without data protection (macOS) answers
/// ENOTSUP, taken as success. Linux has no data protection: the class is only recorded, for
/// `hk_protection_class_at` in this process (the last 4096 files).
/// Returns 0, or -1 with `errno` set.
int hk_set_protection_class(int fd, int protection_class);

/// The data protection class of the file or folder at `path`, or -1 with `errno` set.
/// Apple platforms: `getattrlist(ATTR_CMN_DATA_PROTECT_FLAGS)`. Linux: the class this process last
/// recorded for the file, or -1 with ENOENT when none.
int hk_protection_class_at(const char *path);

/// Opens the file at `path` read-only (and non-blocking) as the system lets this process now: a
/// file whose class is complete (or complete unless open) cannot be opened while the device is
/// locked. Apple platforms: `open`, which then fails with EPERM. Linux has no data protection: `open`,
/// except for a file in the folder given to `hk_simulate_locked_device` whose recorded class is one
/// of those two, which fails with EPERM as on a locked device.
/// Returns the descriptor, or -1 with `errno` set.
int hk_open_protected(const char *path);

#if !defined(__APPLE__)
/// Linux only, for tests: until it is called again, `hk_open_protected` refuses the files in `folder`
/// (at any depth) whose recorded class is complete or complete unless open, as a locked device
/// would; `NULL` ends it. Scoped to a folder so that tests running at the same time in the process
/// are not affected.
/// Returns 0, or -1 with `errno` set when `folder` cannot be resolved.
int hk_simulate_locked_device(const char *folder);
#endif

// MARK: Immutable files

/// 1 when the file open as `fd` is immutable or append-only (`chflags uchg`, `chattr +i`), 0 when it
/// is not or its file system has no such flags.
int hk_is_frozen(int fd);

#endif
