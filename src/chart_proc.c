/*
 * chart proc: drawing in child processes.
 *
 * cairo 1.16 cannot draw on two threads (charts.md), so the charts of a
 * report are shared out among processes: chart_write_all() forks a child
 * per part but its own, each child draws every part-th chart and exits,
 * and its error comes back through a pipe as the parent's own.
 *
 * A child has only the thread that forked it. pango runs a thread of its
 * own for each font map (the fontconfig queries), and a child forked
 * while such a thread holds a lock would wait on it for ever; so the
 * report process does not touch pango before it forks its drawers:
 * chart_check_font() does its check in a child of its own, and
 * chart_write_all() opens its fonts after the fork, in each process.
 */
#include "chart_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strata/error.h"

/* The part of a child's message kept: one line of error_last(). */
#define CHILD_MESSAGE_MAX 1024

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* In the child: run fn, send its message, never return. */
static void child_run(int fd, pid_t parent, int (*fn)(void *), void *arg)
{
	const char *msg;
	int rc;

	/* Gone with the parent, whatever kills it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	rc = fn(arg);
	if (rc < 0) {
		msg = error_last();
		write_all(fd, msg, strlen(msg));
	}
	/* _exit: no atexit handler, no stdio buffer of the parent's. */
	_exit(rc == STRATA_ENOMEM ? 3 : rc < 0 ? 1 : 0);
}

int chart_child_start(struct chart_child *c, int (*fn)(void *), void *arg)
{
	pid_t parent = getpid();
	int fds[2];

	c->pid = -1;
	c->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return error_set("unable to start drawing: %s",
				 strerror(errno));
	c->pid = fork();
	if (c->pid == 0) {
		close(fds[0]);
		child_run(fds[1], parent, fn, arg);
	}
	close(fds[1]);
	if (c->pid < 0) {
		close(fds[0]);
		return error_set("unable to start drawing: %s",
				 strerror(errno));
	}
	c->fd = fds[0];
	return 0;
}

/* Up to CHILD_MESSAGE_MAX bytes of what the child sent, to its end. */
static void read_message(int fd, char *msg, size_t size)
{
	size_t n = 0;
	char sink[256];

	for (;;) {
		ssize_t r = n + 1 < size ? read(fd, msg + n, size - 1 - n)
					 : read(fd, sink, sizeof(sink));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < size)
			n += (size_t)r;
	}
	msg[n] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
}

int chart_child_finish(struct chart_child *c, int kill_it)
{
	char msg[CHILD_MESSAGE_MAX + 1];
	int status = 0;
	pid_t w;

	if (c->pid <= 0)
		return 0;
	if (kill_it)
		kill(c->pid, SIGKILL);
	read_message(c->fd, msg, sizeof(msg));
	close(c->fd);
	do
		w = waitpid(c->pid, &status, 0);
	while (w < 0 && errno == EINTR);
	c->pid = -1;
	c->fd = -1;
	if (kill_it || (w == -1 ? 0 : WIFEXITED(status) &&
			!WEXITSTATUS(status)))
		return 0;
	if (w < 0)
		return error_set("unable to wait for a chart drawing process: "
				 "%s", strerror(errno));
	if (WIFSIGNALED(status))
		return error_set("a chart drawing process was killed by "
				 "signal %d (%s)", WTERMSIG(status),
				 strsignal(WTERMSIG(status)));
	if (WEXITSTATUS(status) == 3)
		return error_oom();
	if (msg[0])
		return error_set("%s", msg);
	return error_set("a chart drawing process failed (exit status %d)",
			 WEXITSTATUS(status));
}
