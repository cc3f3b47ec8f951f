// See include/CHandlerKitDarwinShim.h: each function maps to Apple's libSystem on Apple platforms,
// and is implemented for Linux below.
#include "CHandlerKitDarwinShim.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__APPLE__)

#include <inttypes.h>
#include <notify.h>
#include <sys/attr.h>
#include <stdint.h>
#include <stdio.h>

/// The store's Darwin notification name: a 64-bit FNV-1a hash of its wake file's path, so the name
/// is short whatever the path, and the same in every process of the store.
static void notification_name(const char *path, char *name, size_t size) {
    uint64_t hash = 1469598103934665603ULL;
    for (const unsigned char *byte = (const unsigned char *)path; *byte != 0; byte++) {
        hash = (hash ^ *byte) * 1099511628211ULL;
    }
    snprintf(name, size, "org.handlerkit.signals.%" PRIu64, hash);
}

int hk_notify_post(const char *path) {
    char name[64];
    notification_name(path, name, sizeof name);
    if (notify_post(name) != NOTIFY_STATUS_OK) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int hk_notify_register_file_descriptor(const char *path, int *out_fd, int *out_token) {
    char name[64];
    notification_name(path, name, sizeof name);
    if (notify_register_file_descriptor(name, out_fd, 0, out_token) != NOTIFY_STATUS_OK) {
        errno = EIO;
        return -1;
    }
    // Draining reads until the descriptor is empty.
    (void)fcntl(*out_fd, F_SETFL, fcntl(*out_fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

int hk_notify_drain(int fd) {
    int received[16];
    while (read(fd, received, sizeof received) > 0) {
    }
    return 0;
}

int hk_notify_rewatch(const char *path, int fd, int *token) {
    (void)path;
    (void)fd;
    (void)token;
    return 0;
}

void hk_notify_cancel(int fd, int token) {
    (void)fd;  // notify_cancel closes it
    (void)notify_cancel(token);
}

int hk_set_protection_class(int fd, int protection_class) {
    if (fcntl(fd, F_SETPROTECTIONCLASS, protection_class) == 0) return 0;
    return errno == ENOTSUP ? 0 : -1;
}

int hk_protection_class_at(const char *path) {
    struct attrlist request = {.bitmapcount = ATTR_BIT_MAP_COUNT, .commonattr = ATTR_CMN_DATA_PROTECT_FLAGS};
    struct {
        uint32_t length;
        uint32_t protection_class;
    } __attribute__((packed)) reply;
    if (getattrlist(path, &request, &reply, sizeof reply, 0) != 0) return -1;
    return (int)reply.protection_class;
}

int hk_open_protected(const char *path) { return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); }

int hk_is_frozen(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0) return 0;
    return (status.st_flags & (UF_IMMUTABLE | SF_IMMUTABLE | UF_APPEND | SF_APPEND)) != 0;
}

#else  // Linux

#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>

/// What a watch reports: a write (a wake-up), and the loss of the watched file: its link count
/// changes (IN_ATTRIB), its last descriptor closes after it was deleted (IN_DELETE_SELF), it is moved
/// (IN_MOVE_SELF), the watch ends (IN_IGNORED, always reported).
#define HK_LOSS_EVENTS (IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
#define HK_WATCHED_EVENTS (IN_MODIFY | HK_LOSS_EVENTS)

int hk_notify_post(const char *path) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    const unsigned char byte = 1;
    int result = pwrite(fd, &byte, 1, 0) == 1 ? 0 : -1;
    int saved = errno;
    (void)close(fd);
    errno = saved;
    return result;
}

int hk_notify_register_file_descriptor(const char *path, int *out_fd, int *out_token) {
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return -1;
    int watch = inotify_add_watch(fd, path, HK_WATCHED_EVENTS);
    if (watch < 0) {
        int saved = errno;
        (void)close(fd);
        errno = saved;
        return -1;
    }
    *out_fd = fd;
    *out_token = watch;
    return 0;
}

int hk_notify_drain(int fd) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int lost = 0;
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count <= 0) break;
        for (ssize_t offset = 0; offset + (ssize_t)sizeof(struct inotify_event) <= count;) {
            const struct inotify_event *event = (const struct inotify_event *)(buffer + offset);
            if (event->mask & HK_LOSS_EVENTS) lost = 1;
            offset += (ssize_t)sizeof(struct inotify_event) + event->len;
        }
    }
    return lost;
}

int hk_notify_rewatch(const char *path, int fd, int *token) {
    // Watching a file that is watched already answers its watch: the same one when the file at the
    // path is still the watched file, a new one when it was replaced or made again.
    int watch = inotify_add_watch(fd, path, HK_WATCHED_EVENTS);
    if (watch < 0) return -1;
    if (watch == *token) return 0;
    (void)inotify_rm_watch(fd, *token);  // fails, harmlessly, when that watch has ended already
    *token = watch;
    return 1;
}

void hk_notify_cancel(int fd, int token) {
    (void)token;  // closing the inotify descriptor ends its watches
    (void)close(fd);
}

/// The classes recorded by `hk_set_protection_class`, by file, for `hk_protection_class_at`: the last
/// 4096 files (a ring, about 100 KB), so a long-lived process records a bounded amount, and a test
/// process that makes many stores at once still finds the files of the store it looks at. A file is
/// its device, its inode and a hash of its path (0 where `/proc` cannot tell the path): a file made
/// later that reuses the inode of a deleted one, elsewhere, is not taken for it.
#define HK_RECORDED_FILES 4096
static struct {
    dev_t device;
    ino_t inode;
    uint64_t path;
    int protection_class;
} recorded[HK_RECORDED_FILES];
static unsigned recorded_used, recorded_next;
static pthread_mutex_t recorded_lock = PTHREAD_MUTEX_INITIALIZER;

/// A 64-bit FNV-1a hash of `path`.
static uint64_t path_hash(const char *path) {
    uint64_t hash = 1469598103934665603ULL;
    for (const unsigned char *byte = (const unsigned char *)path; *byte != 0; byte++) {
        hash = (hash ^ *byte) * 1099511628211ULL;
    }
    return hash;
}

/// The hash of the absolute path, without symbolic links, of the file at `path` (0 when it has none).
static uint64_t resolved_hash(const char *path) {
    char resolved[PATH_MAX];
    return realpath(path, resolved) != NULL ? path_hash(resolved) : 0;
}

/// The slot recorded for the file, or `recorded_used` when there is none (call with the lock held).
static unsigned recorded_slot(const struct stat *status, uint64_t path) {
    for (unsigned index = 0; index < recorded_used; index++) {
        if (recorded[index].device == status->st_dev && recorded[index].inode == status->st_ino
            && (recorded[index].path == path || recorded[index].path == 0))
            return index;
    }
    return recorded_used;
}

int hk_set_protection_class(int fd, int protection_class) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    path[length < 0 ? 0 : length] = 0;
    uint64_t hash = length > 0 ? path_hash(path) : 0;
    pthread_mutex_lock(&recorded_lock);
    unsigned slot = recorded_slot(&status, hash);
    if (slot == recorded_used) {
        slot = recorded_next;
        recorded_next = (recorded_next + 1) % HK_RECORDED_FILES;
        if (recorded_used < HK_RECORDED_FILES) recorded_used++;
    }
    recorded[slot].device = status.st_dev;
    recorded[slot].inode = status.st_ino;
    recorded[slot].path = hash;
    recorded[slot].protection_class = protection_class;
    pthread_mutex_unlock(&recorded_lock);
    return 0;
}

int hk_protection_class_at(const char *path) {
    struct stat status;
    if (stat(path, &status) != 0) return -1;
    uint64_t hash = resolved_hash(path);
    pthread_mutex_lock(&recorded_lock);
    unsigned slot = recorded_slot(&status, hash);
    int found = slot < recorded_used ? recorded[slot].protection_class : -1;
    pthread_mutex_unlock(&recorded_lock);
    if (found < 0) errno = ENOENT;
    return found;
}

/// The folder, without symbolic links, whose files `hk_open_protected` refuses as a locked device
/// would (`NULL`: none).
static char *locked_folder;
static pthread_mutex_t locked_folder_lock = PTHREAD_MUTEX_INITIALIZER;

int hk_simulate_locked_device(const char *folder) {
    char *resolved = NULL;
    if (folder != NULL && (resolved = realpath(folder, NULL)) == NULL) return -1;
    pthread_mutex_lock(&locked_folder_lock);
    free(locked_folder);
    locked_folder = resolved;
    pthread_mutex_unlock(&locked_folder_lock);
    return 0;
}

/// Whether `path` is in the folder of `hk_simulate_locked_device`.
static int is_in_locked_folder(const char *path) {
    char resolved[PATH_MAX];
    if (realpath(path, resolved) == NULL) return 0;
    pthread_mutex_lock(&locked_folder_lock);
    size_t length = locked_folder != NULL ? strlen(locked_folder) : 0;
    int inside = locked_folder != NULL && strncmp(resolved, locked_folder, length) == 0 && resolved[length] == '/';
    pthread_mutex_unlock(&locked_folder_lock);
    return inside;
}

int hk_open_protected(const char *path) {
    if (is_in_locked_folder(path)) {
        int protection_class = hk_protection_class_at(path);
        if (protection_class == HK_PROTECTION_COMPLETE || protection_class == HK_PROTECTION_COMPLETE_UNLESS_OPEN) {
            errno = EPERM;
            return -1;
        }
    }
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

int hk_is_frozen(int fd) {
    // The kernel writes an int, whatever FS_IOC_GETFLAGS's declared type; file systems without these
    // flags answer ENOTTY: nothing is frozen there.
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) return 0;
    return (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)) != 0;
}

#endif
