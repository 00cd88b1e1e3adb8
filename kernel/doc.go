// Package kernel serves a copulang session as a Jupyter kernel: it reads the
// connection file, speaks the Jupyter messaging protocol (version 5.3) over
// ZeroMQ on the five sockets (shell, control, stdin, iopub, heartbeat), signs
// and verifies messages with HMAC (dropping a signed message received before,
// a replay, as jupyter_client's Session does), and installs the kernelspec.
//
// The language itself is behind the Engine interface; this package knows
// nothing of statistics. The sockets are those of kernel/internal/zmtp
// (ZMTP over github.com/go-zeromq/zmq4's handshake, with a bounded send
// queue per peer, so that a stalled or vanished client can never block the
// kernel or the other clients).
//
// Shell requests are taken off the socket as they arrive: execute_requests
// run one at a time, in order (the reader that receives one while none runs
// runs it, handing the socket to a new reader), while kernel_info,
// complete, inspect, is_complete, history and comm requests are answered
// at once, also during a long cell; each has its own busy and idle status,
// and while a cell runs the cell's busy status follows that idle at once, as
// frontends take the latest status for the kernel's. Control requests
// (interrupt, shutdown) have their own goroutine. A request's iopub
// messages are written before its shell reply. After a cell fails (with
// stop_on_error, the default), every execute_request that arrives before
// the shell has been quiet for a moment is answered "aborted", as ipykernel
// does, before the failing cell's own reply is sent; so is one from the
// same client that arrives later but is dated before that client can have
// seen the failure (a Run All relayed by a busy notebook server). A
// kernel_info_request that arrives while no client subscribes to iopub is
// answered once one does, or after 2 s: clients take its reply to mean
// ready, and what is published before a subscription arrives is lost.
//
// The progress of long statements goes to most clients as a display
// updated in place; a client session that executes the code of its last
// is_complete_request, as jupyter console does on Enter, is a console,
// which ignores display updates, and gets its progress as a stdout line
// rewritten in place instead (console.go says why this signal). A console
// that asks about new text while its own cell runs has left the cell
// behind (jupyter console after a Ctrl-C it does not forward), and is told
// that the cell runs on and how to stop it. Every other client gets the
// states after the display's first as text too, under a parent msg_id of
// their own, which jupyter console --simple-prompt prints and notebook
// clients drop (mirror.go).
package kernel
