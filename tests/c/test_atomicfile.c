/* Atomic files against targets that are not plain new files: devices,
 * FIFOs, symbolic links, read-only files, folders, a replaced file's mode,
 * a process killed mid-write, two writers of one target. No temporary
 * file may be left behind in any case. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "check.h"
#include "snapkit/util/atomicfile.h"

static char g_dir[1024];

static void in_dir(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Write text to path through an atomic file; the status. */
static int write_text(const char *path, const char *text, sk_error *err)
{
    sk_atomic_file *f;
    int rc = sk_atomic_open(&f, path, err);
    if (rc != SK_OK)
        return rc;
    rc = sk_atomic_write(f, text, strlen(text), err);
    return rc == SK_OK ? sk_atomic_commit(f, err) : (sk_atomic_abort(f), rc);
}

static void read_text(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* Entries of the scratch folder (besides . and ..). */
static int entries(void)
{
    DIR *d = opendir(g_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void test_device(void)
{
    sk_error err;
    struct stat before, after;
    CHECK(stat("/dev/null", &before) == 0);
    CHECK_OK(write_text("/dev/null", "nothing to see\n", &err), &err);
    CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode));
    CHECK(before.st_ino == after.st_ino);
    int rc = write_text("/dev/full", "x", &err);
    CHECK(rc != SK_OK);
    CHECK_CONTAINS(err.message, "/dev/full");
}

static void test_fifo(void)
{
    char path[2048], got[64];
    in_dir(path, sizeof path, "fifo");
    CHECK(mkfifo(path, 0600) == 0);
    pid_t reader = fork();
    if (reader == 0) {
        char buf[64];
        read_text(path, buf, sizeof buf);
        _exit(strcmp(buf, "through the pipe\n") == 0 ? 0 : 1);
    }
    sk_error err;
    CHECK_OK(write_text(path, "through the pipe\n", &err), &err);
    int status = -1;
    waitpid(reader, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    (void)got;
    unlink(path);
}

static void test_symlink(void)
{
    char file[2048], link[2048], dangling[2048], got[64];
    in_dir(file, sizeof file, "file.txt");
    in_dir(link, sizeof link, "link.txt");
    in_dir(dangling, sizeof dangling, "dangling.txt");
    sk_error err;
    CHECK_OK(write_text(file, "old\n", &err), &err);
    CHECK(symlink("file.txt", link) == 0);
    CHECK_OK(write_text(link, "new\n", &err), &err);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    read_text(file, got, sizeof got);
    CHECK(strcmp(got, "new\n") == 0);
    CHECK(symlink("nowhere/missing.txt", dangling) == 0);
    CHECK(write_text(dangling, "x", &err) != SK_OK);
    CHECK_CONTAINS(err.message, "symbolic link to a file that does not exist");
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(dangling);
    unlink(link);
    unlink(file);
}

static void test_modes(void)
{
    char file[2048], got[64];
    in_dir(file, sizeof file, "mode.txt");
    sk_error err;
    CHECK_OK(write_text(file, "first\n", &err), &err);
    CHECK(chmod(file, 0640) == 0);
    CHECK_OK(write_text(file, "second\n", &err), &err);
    struct stat st;
    CHECK(stat(file, &st) == 0 && (st.st_mode & 07777) == 0640);
    CHECK(chmod(file, 0444) == 0);
    CHECK(write_text(file, "third\n", &err) != SK_OK);
    CHECK_CONTAINS(err.message, "is read-only (mode 0444)");
    read_text(file, got, sizeof got);
    CHECK(strcmp(got, "second\n") == 0);
    CHECK(stat(file, &st) == 0 && (st.st_mode & 07777) == 0444);
    chmod(file, 0644);
    unlink(file);
    CHECK(write_text(g_dir, "x", &err) != SK_OK);
    CHECK_CONTAINS(err.message, "is a folder");
}

/* A writer killed before commit leaves the target as it was and nothing
 * else: the temporary file has no name until commit. */
static void test_killed_writer(void)
{
    char file[2048], got[64];
    in_dir(file, sizeof file, "target.txt");
    sk_error err;
    CHECK_OK(write_text(file, "intact\n", &err), &err);
    int before = entries();
    int sig[] = {SIGKILL, SIGINT, SIGTERM};
    for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++) {
        pid_t child = fork();
        if (child == 0) {
            sk_atomic_file *f;
            sk_error e;
            if (sk_atomic_open(&f, file, &e) != SK_OK)
                _exit(2);
            static char big[1 << 20];
            sk_atomic_write(f, big, sizeof big, &e);
            raise(sig[k]);
            _exit(3);
        }
        int status = 0;
        waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig[k]);
        CHECK_MSG(entries() == before, "signal %d left %d entries, not %d", sig[k], entries(),
                  before);
    }
    read_text(file, got, sizeof got);
    CHECK(strcmp(got, "intact\n") == 0);
    unlink(file);
}

/* Two processes replacing one target at once: one whole file wins. */
static void test_concurrent_writers(void)
{
    char file[2048];
    in_dir(file, sizeof file, "shared.txt");
    static char a[200000], b[200000];
    memset(a, 'a', sizeof a - 1);
    memset(b, 'b', sizeof b - 1);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            sk_error e;
            for (int i = 0; i < 20; i++)
                if (write_text(file, k ? b : a, &e) != SK_OK)
                    _exit(1);
            _exit(0);
        }
    }
    for (int k = 0; k < 2; k++) {
        int status = -1;
        waitpid(kids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    static char got[sizeof a + 16];
    read_text(file, got, sizeof got);
    CHECK(strcmp(got, a) == 0 || strcmp(got, b) == 0);
    CHECK(entries() == 1);
    unlink(file);
}

/* A batch replaces all of its files or none of them. */
static void test_batch(void)
{
    char a[2048], b[2048], got[64];
    in_dir(a, sizeof a, "a.txt");
    in_dir(b, sizeof b, "b.txt");
    sk_error err;
    CHECK_OK(write_text(a, "old a\n", &err), &err);
    CHECK_OK(write_text(b, "old b\n", &err), &err);
    for (int keep = 0; keep < 2; keep++) {
        sk_atomic_batch batch;
        sk_atomic_batch_begin(&batch);
        CHECK_OK(write_text(a, "new a\n", &err), &err);
        read_text(a, got, sizeof got);
        CHECK(strcmp(got, "old a\n") == 0); /* nothing renamed before the end */
        CHECK_OK(write_text(b, "new b\n", &err), &err);
        CHECK_EQ_INT(entries(), 4);          /* two named temporaries wait */
        CHECK_OK(sk_atomic_batch_end(&batch, keep, &err), &err);
        CHECK_EQ_INT(entries(), 2);
        read_text(a, got, sizeof got);
        CHECK(strcmp(got, keep ? "new a\n" : "old a\n") == 0);
        read_text(b, got, sizeof got);
        CHECK(strcmp(got, keep ? "new b\n" : "old b\n") == 0);
    }
    CHECK_OK(write_text(a, "after\n", &err), &err); /* no batch: renamed at once */
    read_text(a, got, sizeof got);
    CHECK(strcmp(got, "after\n") == 0);
    unlink(a);
    unlink(b);
}

/* A process killed by SIGTERM while a batch's files wait beside their
 * targets: its handler (as the snapkit command's) removes them, and the
 * old files stay; after the batch, nothing is pending any more. */
static void on_term(int sig)
{
    sk_atomic_remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void test_signal_removes_pending(void)
{
    char a[2048], b[2048], got[64];
    in_dir(a, sizeof a, "sa.txt");
    in_dir(b, sizeof b, "sb.txt");
    sk_error err;
    CHECK_OK(write_text(a, "old a\n", &err), &err);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGTERM, on_term);
        sk_atomic_batch batch;
        sk_atomic_batch_begin(&batch);
        int ok = write_text(a, "new a\n", &err) == SK_OK && write_text(b, "new b\n", &err) == SK_OK;
        if (write(ready[1], ok ? "1" : "0", 1) != 1)
            _exit(2);
        pause(); /* the batch never ends: SIGTERM comes first */
        _exit(3);
    }
    char c = 0;
    CHECK(read(ready[0], &c, 1) == 1 && c == '1');
    CHECK_EQ_INT(entries(), 3); /* the old a, and two named temporaries */
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK_EQ_INT(entries(), 1);
    read_text(a, got, sizeof got);
    CHECK(strcmp(got, "old a\n") == 0);
    close(ready[0]);
    close(ready[1]);
    /* in this process: a finished batch leaves nothing for the handler */
    sk_atomic_batch batch;
    sk_atomic_batch_begin(&batch);
    CHECK_OK(write_text(b, "b\n", &err), &err);
    CHECK_OK(sk_atomic_batch_end(&batch, 1, &err), &err);
    sk_atomic_remove_pending();
    read_text(b, got, sizeof got);
    CHECK(strcmp(got, "b\n") == 0);
    unlink(a);
    unlink(b);
}

int main(void)
{
    CHECK(test_tmpdir(g_dir, sizeof g_dir) != NULL);
    test_device();
    test_fifo();
    test_symlink();
    test_modes();
    test_killed_writer();
    test_concurrent_writers();
    test_batch();
    test_signal_removes_pending();
    CHECK_MSG(entries() == 0, "%d entries left in %s", entries(), g_dir);
    rmdir(g_dir);
    return test_done();
}
