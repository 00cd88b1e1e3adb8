// Package kernel serves a copulang session as a Jupyter kernel: it reads the
// connection file, speaks the Jupyter messaging protocol (version 5.3) over
// ZeroMQ on the five sockets (shell, control, stdin, iopub, heartbeat), signs
// and verifies messages with HMAC, and installs the kernelspec.
//
// The language itself is behind the Engine interface; this package knows
// nothing of statistics. ZMTP connections are opened with
// github.com/go-zeromq/zmq4's handshake; framing, routing and fan-out are done
// here so that every peer has its own bounded send queue and a stalled or
// vanished client can never block the kernel or the other clients.
package kernel
