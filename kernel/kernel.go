package kernel

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
)

// Info describes the kernel and its language in kernel_info_reply.
type Info struct {
	Implementation        string
	ImplementationVersion string
	Language              LanguageInfo
	Banner                string
	HelpLinks             []HelpLink
}

// LanguageInfo is the language_info of kernel_info_reply.
type LanguageInfo struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	MIMEType          string `json:"mimetype"`
	FileExtension     string `json:"file_extension"`
	PygmentsLexer     string `json:"pygments_lexer,omitempty"`
	CodeMirrorMode    string `json:"codemirror_mode,omitempty"`
	NBConvertExporter string `json:"nbconvert_exporter,omitempty"`
}

// HelpLink is an entry of the frontend's help menu.
type HelpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// DefaultInfo returns copulang's kernel description for a release version.
// Notebook highlights with the CodeMirror mode that the kernelspec's
// kernel.js defines (see Highlighting); pygments (nbconvert) has no lexer of
// its own for the language, and its comments, strings and numbers are
// Python's.
func DefaultInfo(version string) Info {
	return Info{
		Implementation:        "copulang",
		ImplementationVersion: version,
		Language: LanguageInfo{
			Name:           "copulang",
			Version:        version,
			MIMEType:       "text/x-copulang",
			FileExtension:  ".cop",
			PygmentsLexer:  "python",
			CodeMirrorMode: "copulang",
		},
		Banner: "copulang " + version + " — Gaussian copula models of ordinal data\n" +
			"(Hoff's extended rank likelihood, exact HMC, copula factor models)",
		HelpLinks: []HelpLink{{Text: "copulang", URL: "https://github.com/copulang/copulang"}},
	}
}

// Serve runs a Jupyter kernel on the sockets of conn until a
// shutdown_request (it then returns nil) or until ctx is cancelled (it
// returns ctx.Err()). Cells run on engine one at a time; interrupt_request on
// the control socket or SIGINT cancels the running cell's context. log may
// be nil.
func Serve(ctx context.Context, conn ConnectionInfo, engine Engine, info Info, log *slog.Logger) error {
	k, err := newKernel(conn, engine, info, log, zmtp.DefaultOptions())
	if err != nil {
		return err
	}
	return k.run(ctx)
}

// kernel is one running kernel.
type kernel struct {
	info    Info
	engine  Engine
	log     *slog.Logger
	sign    *signer
	session string
	nextID  atomic.Uint64

	shell, control, stdin, iopub, hb *zmtp.Socket

	shutdownOnce sync.Once
	shutdown     chan struct{} // closed by a shutdown_request

	// executes holds the execute_requests waiting behind the running one;
	// other shell requests are answered as they arrive (see serveShell).
	executes execQueue
	// shellWG counts the goroutines that read the shell socket or run
	// executes (a reader becomes the executor; see serveShell).
	shellWG sync.WaitGroup
	// lastShell is when the latest shell message arrived (UnixNano).
	lastShell atomic.Int64
	// cutoffs holds, per client session, the latest client time before
	// which that client cannot have seen its last failed cell's reply (see
	// abortCutoff).
	cutoffs cutoffs
	// consoles holds the client sessions that are console front ends, to
	// which the progress of long statements goes as a stream (console.go).
	consoles consoleSessions
	// replays holds the signatures of the messages received lately.
	replays replayGuard

	// statusMu orders the status messages of the running execute_request
	// with those of the requests answered while it runs (see handle).
	statusMu sync.Mutex
	// executing is the execute_request between its busy and its idle
	// status, if any.
	executing *Message

	mu         sync.Mutex
	count      int            // execution_count
	history    []historyEntry // inputs and outputs of this session
	cancelCell context.CancelFunc
	// consoleCell is the output of the running cell when a console
	// executes it, nil otherwise (see consoleOutput.leftBehind).
	consoleCell *consoleOutput
}

// After a cell fails with stop_on_error, every execute_request that
// arrives before the shell has been quiet for abortQuiet (at most abortMax
// after the failure) is aborted; see awaitQuiet. The error itself is on
// iopub at once; only the reply and the idle status wait. 250 ms outlasts
// the pauses of a client sending a batch of cells on a loaded machine (100
// ms did not, once in 20 trials with load average 10 on 2 cores).
const (
	abortQuiet = 250 * time.Millisecond
	abortMax   = 2 * time.Second
)

// iopubWait bounds how long a reply waits for its request's iopub messages
// to be written to the subscribers (see zmtp.Socket.WaitWritten).
const iopubWait = time.Second

func newKernel(conn ConnectionInfo, engine Engine, info Info, log *slog.Logger, opts zmtp.Options) (*kernel, error) {
	if err := conn.check(); err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	if engine == nil {
		return nil, errors.New("kernel: nil engine")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sign, err := newSigner(conn.SignatureScheme, conn.Key)
	if err != nil {
		return nil, err
	}
	k := &kernel{
		info:     info,
		engine:   engine,
		log:      log,
		sign:     sign,
		session:  newUUID(),
		shutdown: make(chan struct{}),
	}
	specs := []struct {
		dst  **zmtp.Socket
		name string
		kind zmtp.Kind
		port int
	}{
		{&k.hb, "heartbeat", zmtp.Rep, conn.HBPort},
		{&k.iopub, "iopub", zmtp.Pub, conn.IOPubPort},
		{&k.control, "control", zmtp.Router, conn.ControlPort},
		{&k.stdin, "stdin", zmtp.Router, conn.StdinPort},
		{&k.shell, "shell", zmtp.Router, conn.ShellPort},
	}
	for i, sp := range specs {
		network, addr := conn.endpoint(sp.port)
		s, err := zmtp.Listen(sp.name, sp.kind, network, addr, opts, log)
		if err != nil {
			for _, prev := range specs[:i] {
				(*prev.dst).Close()
			}
			return nil, fmt.Errorf("kernel: %w", err)
		}
		*sp.dst = s
	}
	return k, nil
}

// run serves requests until shutdown, then closes the sockets.
func (k *kernel) run(ctx context.Context) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	sigint := make(chan os.Signal, 1)
	signal.Notify(sigint, os.Interrupt)
	defer signal.Stop(sigint)

	k.log.Info("kernel started", "session", k.session)
	k.publish(nil, "status", map[string]string{"execution_state": "starting"})

	var wg sync.WaitGroup
	k.startShellReader(runCtx)
	wg.Add(2)
	go func() {
		defer wg.Done()
		k.serveControl(runCtx)
	}()
	go func() {
		defer wg.Done()
		k.drainStdin(runCtx)
	}()

	var err error
loop:
	for {
		select {
		case <-sigint:
			k.log.Info("SIGINT: interrupting the running cell")
			k.interrupt()
		case <-k.shutdown:
			k.log.Info("shutdown requested")
			break loop
		case <-ctx.Done():
			err = ctx.Err()
			k.log.Info("stopping", "reason", context.Cause(ctx))
			break loop
		}
	}
	stop()
	k.interrupt()
	wg.Wait()
	shellDone := make(chan struct{})
	go func() {
		k.shellWG.Wait()
		close(shellDone)
	}()
	select {
	case <-shellDone:
	case <-time.After(2 * time.Second):
		k.log.Warn("the running cell ignored its cancelled context; closing anyway")
	}
	for _, s := range []*zmtp.Socket{k.shell, k.control, k.iopub} {
		s.Flush(time.Second)
	}
	for _, s := range []*zmtp.Socket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		s.Close()
	}
	k.log.Info("kernel stopped")
	return err
}

// interrupt cancels the running cell, if any.
func (k *kernel) interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancelCell != nil {
		k.cancelCell()
	}
}

func (k *kernel) requestShutdown() {
	k.shutdownOnce.Do(func() { close(k.shutdown) })
}

// startShellReader starts a goroutine running serveShell.
func (k *kernel) startShellReader(ctx context.Context) {
	k.shellWG.Add(1)
	go func() {
		defer k.shellWG.Done()
		k.serveShell(ctx)
	}()
}

// serveShell takes every shell message off the socket as it arrives. It
// answers kernel_info, complete, inspect, is_complete, history and comm
// requests at once, so that a console's is_complete or a notebook's
// completion never waits behind a running cell. An execute_request is
// queued behind the running one, if any; otherwise this goroutine becomes
// the executor: it starts another reader in its place and runs the request
// itself (and then whatever was queued meanwhile), which spares a trivial
// cell a hand-off between goroutines.
func (k *kernel) serveShell(ctx context.Context) {
	for {
		select {
		case in := <-k.shell.Inbox():
			now := time.Now()
			k.lastShell.Store(now.UnixNano())
			m, err := k.decode(in.Frames)
			if err != nil {
				k.log.Warn("dropping message", "socket", "shell", "err", err)
				continue
			}
			r := request{from: in.From, m: m, arrived: now}
			if m.Header.MsgType != "execute_request" {
				k.handle(ctx, k.shell, r)
				continue
			}
			if k.executes.enqueueUnlessIdle(r) {
				continue
			}
			k.startShellReader(ctx)
			k.runExecutes(ctx, r)
			return
		case <-ctx.Done():
			return
		}
	}
}

// serveControl handles control requests on their own goroutine, so that
// interrupt and shutdown are answered while a cell runs.
func (k *kernel) serveControl(ctx context.Context) {
	for {
		select {
		case in := <-k.control.Inbox():
			m, err := k.decode(in.Frames)
			if err != nil {
				k.log.Warn("dropping message", "socket", "control", "err", err)
				continue
			}
			k.handle(ctx, k.control, request{from: in.From, m: m})
		case <-ctx.Done():
			return
		}
	}
}

// drainStdin reads and drops stdin messages: the language never asks for
// input.
func (k *kernel) drainStdin(ctx context.Context) {
	for {
		select {
		case in := <-k.stdin.Inbox():
			m, err := k.decode(in.Frames)
			if err != nil {
				k.log.Warn("dropping message", "socket", "stdin", "err", err)
				continue
			}
			k.log.Debug("ignoring stdin message", "msg_type", m.Header.MsgType)
		case <-ctx.Done():
			return
		}
	}
}

// decode decodes and verifies a received message, and refuses one whose
// signature the kernel has already received (a replay).
func (k *kernel) decode(frames [][]byte) (*Message, error) {
	m, err := decodeMessage(frames, k.sign)
	if err != nil {
		return nil, err
	}
	if k.sign.key != nil && k.replays.replayed(m.Signature) {
		return nil, errReplayed
	}
	return m, nil
}

// build encodes a message of msgType with the given parent (nil for none)
// and content.
func (k *kernel) build(idents [][]byte, parent *Message, msgType string, content any) ([][]byte, error) {
	body, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("kernel: encoding %s content: %w", msgType, err)
	}
	m := &Message{
		Identities: idents,
		Header: Header{
			MsgID:    k.session + "_" + strconv.FormatUint(k.nextID.Add(1), 10),
			Session:  k.session,
			Username: "kernel",
			Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
			MsgType:  msgType,
			Version:  protocolVersion,
		},
		Content: body,
	}
	if parent != nil {
		m.ParentHeader = parent.RawHeader
	}
	return m.encode(k.sign)
}

// publish sends a message on iopub. It never blocks on a subscriber.
func (k *kernel) publish(parent *Message, msgType string, content any) {
	topic := []byte("kernel." + k.session + "." + msgType)
	frames, err := k.build([][]byte{topic}, parent, msgType, content)
	if err != nil {
		k.log.Error("cannot publish", "msg_type", msgType, "err", err)
		return
	}
	k.iopub.Publish(frames)
}

// reply answers request r on socket s. On shell, it first waits (boundedly)
// until what the request published on iopub has been written, so that a
// client reading the reply finds the request's outputs already delivered;
// control replies (interrupt, shutdown) never wait.
func (k *kernel) reply(s *zmtp.Socket, r request, msgType string, content any) {
	frames, err := k.build(r.m.Identities, r.m, msgType, content)
	if err != nil {
		k.log.Error("cannot reply", "msg_type", msgType, "err", err)
		return
	}
	if s == k.shell {
		k.iopub.WaitWritten(iopubWait)
	}
	if err := s.SendTo(r.from, frames); err != nil {
		k.log.Warn("send failed", "socket", s.Name(), "msg_type", msgType, "err", err)
	}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
