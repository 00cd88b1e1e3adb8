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
// The language is comment-, string- and number-compatible with Python, so
// Python highlighting is the closest available in pygments and CodeMirror.
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
			CodeMirrorMode: "python",
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
	k, err := newKernel(conn, engine, info, log, defaultSocketOptions())
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

	shell, control, stdin, iopub, hb *zsocket

	shutdownOnce sync.Once
	shutdown     chan struct{} // closed by a shutdown_request
	abortPending bool          // shell goroutine only: an execute failed with stop_on_error

	mu         sync.Mutex
	count      int            // execution_count
	history    []historyEntry // inputs of this session
	cancelCell context.CancelFunc
}

func newKernel(conn ConnectionInfo, engine Engine, info Info, log *slog.Logger, opts socketOptions) (*kernel, error) {
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
		dst  **zsocket
		name string
		kind socketKind
		port int
	}{
		{&k.hb, "heartbeat", repSocket, conn.HBPort},
		{&k.iopub, "iopub", pubSocket, conn.IOPubPort},
		{&k.control, "control", routerSocket, conn.ControlPort},
		{&k.stdin, "stdin", routerSocket, conn.StdinPort},
		{&k.shell, "shell", routerSocket, conn.ShellPort},
	}
	for i, sp := range specs {
		network, addr := conn.endpoint(sp.port)
		s, err := listenSocket(sp.name, sp.kind, network, addr, opts, log)
		if err != nil {
			for _, prev := range specs[:i] {
				(*prev.dst).close()
			}
			return nil, err
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
	shellDone := make(chan struct{})
	go func() {
		defer close(shellDone)
		k.serveShell(runCtx)
	}()
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
	select {
	case <-shellDone:
	case <-time.After(2 * time.Second):
		k.log.Warn("the running cell ignored its cancelled context; closing anyway")
	}
	for _, s := range []*zsocket{k.shell, k.control, k.iopub} {
		s.flush(time.Second)
	}
	for _, s := range []*zsocket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		s.close()
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

// serveShell handles shell requests one at a time.
func (k *kernel) serveShell(ctx context.Context) {
	for {
		select {
		case in := <-k.shell.inbox:
			k.handle(ctx, k.shell, in)
			if k.abortPending {
				k.abortPending = false
				k.abortQueued(ctx, k.shell)
			}
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
		case in := <-k.control.inbox:
			k.handle(ctx, k.control, in)
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
		case in := <-k.stdin.inbox:
			m, err := decodeMessage(in.frames, k.sign)
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
	k.iopub.publish(frames)
}

// reply answers request m, received from peer p of socket s.
func (k *kernel) reply(s *zsocket, p *peer, m *Message, msgType string, content any) {
	frames, err := k.build(m.Identities, m, msgType, content)
	if err != nil {
		k.log.Error("cannot reply", "msg_type", msgType, "err", err)
		return
	}
	if err := s.sendTo(p, frames); err != nil {
		k.log.Warn("send failed", "socket", s.name, "msg_type", msgType, "err", err)
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
