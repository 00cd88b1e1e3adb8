// Package zmtp serves listening ZeroMQ sockets (ROUTER, PUB and REP) over
// ZMTP 3 with the NULL mechanism, for the Jupyter kernel's five sockets.
//
// It exists instead of github.com/go-zeromq/zmq4's socket types because
// zmq4 v0.17.0's PUB socket sends to every subscriber in turn from one
// goroutine with no deadline, so one subscriber that stops reading stalls
// iopub for everybody, and its ROUTER holds a lock while writing to a peer.
// Here every peer has its own writer goroutine and bounded queue; a PUB
// socket drops the oldest message for a subscriber whose queue is full, and a
// peer that accepts no bytes for Options.WriteTimeout is disconnected. zmq4
// performs the ZMTP 3.0 handshake; framing after it is the few lines below.
//
// Nothing here knows about Jupyter messages: a message is a list of frames.
package zmtp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"
)

// Kind is the ZeroMQ socket type a socket plays.
type Kind int

// Socket kinds.
const (
	Router Kind = iota // routes replies to the peer a request came from (shell, control, stdin)
	Pub                // fans out to subscribers (iopub)
	Rep                // echoes every message (heartbeat)
)

func (k Kind) zmqType() zmq4.SocketType {
	switch k {
	case Pub:
		return zmq4.Pub
	case Rep:
		return zmq4.Rep
	default:
		return zmq4.Router
	}
}

// Options bound what one peer may cost.
type Options struct {
	QueueLen         int           // messages waiting per peer
	QueueBytes       int           // bytes waiting per peer
	WriteTimeout     time.Duration // a peer that takes no bytes this long is dropped
	HandshakeTimeout time.Duration
	MaxFrame         int // bytes in one received frame
	MaxMessage       int // bytes in one received message
}

// DefaultOptions are the kernel's bounds.
func DefaultOptions() Options {
	return Options{
		QueueLen:         4096,
		QueueBytes:       64 << 20,
		WriteTimeout:     30 * time.Second,
		HandshakeTimeout: 10 * time.Second,
		MaxFrame:         256 << 20,
		MaxMessage:       512 << 20,
	}
}

// Send errors.
var (
	ErrPeerGone  = errors.New("peer disconnected")
	ErrQueueFull = errors.New("peer send queue full")
)

// Inbound is a message received on a router socket and the peer it came
// from, to reply to with SendTo.
type Inbound struct {
	From   *Peer
	Frames [][]byte
}

// Socket is a listening ZeroMQ socket with its connected peers.
type Socket struct {
	name     string
	kind     Kind
	opts     Options
	log      *slog.Logger
	ln       net.Listener
	unixPath string
	inbox    chan Inbound // router sockets only
	done     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]*Peer // nil value: handshake in progress

	// progressMu guards progress, a channel closed (and replaced) each
	// time a peer's writer finishes a write, for WaitWritten, and
	// subscribed, one closed (and replaced) each time a peer subscribes,
	// for WaitSubscribed.
	progressMu sync.Mutex
	progress   chan struct{}
	subscribed chan struct{}
}

// Listen binds a socket of the given kind and starts accepting peers.
func Listen(name string, kind Kind, network, address string, opts Options, log *slog.Logger) (*Socket, error) {
	if network == "unix" {
		if fi, err := os.Lstat(address); err == nil && fi.Mode()&os.ModeSocket != 0 {
			os.Remove(address) // stale socket of a dead kernel
		}
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, fmt.Errorf("%s socket: %w", name, err)
	}
	s := &Socket{
		name:     name,
		kind:     kind,
		opts:     opts,
		log:      log.With("socket", name),
		ln:       ln,
		done:     make(chan struct{}),
		conns:    make(map[net.Conn]*Peer),
		progress: make(chan struct{}),
	}
	if network == "unix" {
		s.unixPath = address
	}
	if kind == Router {
		s.inbox = make(chan Inbound, 64)
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Name is the socket's name, as given to Listen.
func (s *Socket) Name() string { return s.name }

// Inbox delivers the messages received on a router socket, in the order
// each peer sent them. It is nil for other kinds.
func (s *Socket) Inbox() <-chan Inbound { return s.inbox }

func (s *Socket) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				s.log.Error("listener closed", "err", err)
				return
			}
			s.log.Warn("accept failed", "err", err)
			time.Sleep(20 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		s.mu.Lock()
		select {
		case <-s.done:
			s.mu.Unlock()
			c.Close()
			return
		default:
		}
		s.conns[c] = nil
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

// serveConn runs one peer from handshake to disconnection.
func (s *Socket) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	id, err := s.handshake(c)
	if err != nil {
		level := slog.LevelWarn
		if peerLeft(err) {
			level = slog.LevelDebug
		}
		s.log.Log(context.Background(), level, "ZMTP handshake failed", "remote", fmt.Sprint(c.RemoteAddr()), "err", err)
		return
	}
	p := &Peer{
		s:        s,
		conn:     c,
		identity: id,
		wake:     make(chan struct{}, 1),
		closed:   make(chan struct{}),
	}
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return
	default:
	}
	s.conns[c] = p
	s.wg.Add(1)
	s.mu.Unlock()
	go p.writeLoop()
	p.readLoop()
	p.close()
}

// peerLeft reports whether a handshake failed because the peer closed or
// reset its end (EOF, a broken pipe, a reset). Clients do that in the
// normal run of things: jupyter_client's heartbeat channel (7.4) closes its
// socket and connects anew whenever no beat comes back within a second,
// the handshake included when that takes longer (under high load), and a
// client that stops closes its sockets wherever their handshakes are. The kernel's stderr is the terminal of a jupyter
// console user, where a warning of it ("ZMTP handshake failed … broken
// pipe") said nothing to act on; it is logged at debug level. A peer that
// speaks something other than ZMTP, or a socket type that does not match,
// or that stays silent past the handshake's timeout, is still warned of: a
// client connected to the wrong port, or a wrong connection file.
func peerLeft(err error) bool {
	for _, gone := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.EPIPE, syscall.ECONNRESET, net.ErrClosed} {
		if errors.Is(err, gone) {
			return true
		}
	}
	return false
}

// handshake performs the ZMTP greeting and NULL-mechanism READY exchange
// with zmq4 and returns the peer's identity. zmq4 may panic on malformed
// metadata; that only fails this connection.
func (s *Socket) handshake(c net.Conn) (id string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed handshake: %v", r)
		}
	}()
	c.SetDeadline(time.Now().Add(s.opts.HandshakeTimeout))
	zc, err := zmq4.Open(c, NullSecurity{}, s.kind.zmqType(), zmq4.SocketIdentity(""), true, nil)
	if err != nil {
		return "", err
	}
	c.SetDeadline(time.Time{})
	return zc.Peer.Meta["Identity"], nil
}

// Publish queues frames for every subscriber whose subscription is a prefix
// of the first frame, dropping each subscriber's oldest message if its queue
// is full, and writes them at once to each subscriber whose writer is idle
// (see flushInline). It never waits on the network for more than
// inlineWriteTimeout.
func (s *Socket) Publish(frames [][]byte) {
	s.mu.Lock()
	var subscribers []*Peer
	for _, p := range s.conns {
		if p != nil && p.subscribed(frames[0]) && p.enqueue(frames, true, false) == nil {
			subscribers = append(subscribers, p)
		}
	}
	s.mu.Unlock()
	for _, p := range subscribers {
		p.flushInline()
	}
}

// SendTo queues frames for one peer and, unless the peer's writer is busy,
// writes them at once from the calling goroutine (see flushInline). It
// fails at once if the peer has gone or its queue is full, and never waits
// on the network for more than inlineWriteTimeout.
func (s *Socket) SendTo(p *Peer, frames [][]byte) error {
	if err := p.enqueue(frames, false, false); err != nil {
		return err
	}
	p.flushInline()
	return nil
}

// WaitSubscribed waits until some peer of a pub socket has a subscription,
// or timeout, and reports whether one has.
func (s *Socket) WaitSubscribed(timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		// Take the channel before looking, so that a subscription made
		// after the look closes it.
		s.progressMu.Lock()
		if s.subscribed == nil {
			s.subscribed = make(chan struct{})
		}
		ch := s.subscribed
		s.progressMu.Unlock()
		if s.hasSubscriber() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return s.hasSubscriber()
		case <-s.done:
			return false
		}
	}
}

// hasSubscriber reports whether some peer has a subscription.
func (s *Socket) hasSubscriber() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.conns {
		if p != nil && p.hasTopics() {
			return true
		}
	}
	return false
}

// notifySubscribed wakes WaitSubscribed.
func (s *Socket) notifySubscribed() {
	s.progressMu.Lock()
	if s.subscribed != nil {
		close(s.subscribed)
		s.subscribed = nil
	}
	s.progressMu.Unlock()
}

// Peers returns the number of connected peers past the handshake.
func (s *Socket) Peers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.conns {
		if p != nil {
			n++
		}
	}
	return n
}

// Flush waits until every peer's queue has been written, or timeout.
func (s *Socket) Flush(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		pending := false
		s.mu.Lock()
		for _, p := range s.conns {
			if p != nil && p.pending() {
				pending = true
				break
			}
		}
		s.mu.Unlock()
		if !pending {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// WaitWritten waits until every message queued so far has been written to
// (or dropped for) each peer that keeps up, or until timeout. A peer still
// behind at the timeout is marked lagging and not waited for again until its
// queue has run empty, so a stalled subscriber costs one timeout, not one
// per call. It reports whether every peer waited for caught up.
//
// The kernel calls it on iopub before a reply on shell, so that a request's
// outputs are on the wire before its reply.
func (s *Socket) WaitWritten(timeout time.Duration) bool {
	type target struct {
		p *Peer
		n uint64
	}
	var targets []target
	s.mu.Lock()
	for _, p := range s.conns {
		if p == nil {
			continue
		}
		p.mu.Lock()
		if !p.lagging && p.finished < p.enqueued {
			targets = append(targets, target{p, p.enqueued})
		}
		p.mu.Unlock()
	}
	s.mu.Unlock()
	if len(targets) == 0 {
		return true
	}
	for _, t := range targets {
		t.p.flushInline()
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.progressMu.Lock()
		progress := s.progress
		s.progressMu.Unlock()
		behind := targets[:0]
		for _, t := range targets {
			t.p.mu.Lock()
			late := t.p.finished < t.n
			t.p.mu.Unlock()
			if late && !t.p.isClosed() {
				behind = append(behind, t)
			}
		}
		targets = behind
		if len(targets) == 0 {
			return true
		}
		select {
		case <-progress:
		case <-timer.C:
			for _, t := range targets {
				t.p.mu.Lock()
				t.p.lagging = true
				t.p.mu.Unlock()
			}
			s.log.Warn("a subscriber is behind; not waiting for it", "peers", len(targets))
			return false
		}
	}
}

// notifyProgress wakes WaitWritten.
func (s *Socket) notifyProgress() {
	s.progressMu.Lock()
	if s.progress != nil {
		close(s.progress)
		s.progress = make(chan struct{})
	}
	s.progressMu.Unlock()
}

// Close disconnects every peer, stops listening and waits for the socket's
// goroutines.
func (s *Socket) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		close(s.done)
		s.ln.Close()
		for c, p := range s.conns {
			if p != nil {
				p.close()
			} else {
				c.Close()
			}
		}
		s.mu.Unlock()
		s.wg.Wait()
		if s.unixPath != "" {
			os.Remove(s.unixPath)
		}
	})
}

// Peer is one ZMTP connection.
type Peer struct {
	s        *Socket
	conn     net.Conn
	identity string
	wake     chan struct{}
	closed   chan struct{}
	once     sync.Once

	mu      sync.Mutex
	queue   [][][]byte
	queued  int // bytes in queue
	writing bool
	dropped int
	topics  [][]byte // pub sockets: subscriptions
	// enqueued counts the messages ever queued and finished those written
	// or dropped; lagging is set when WaitWritten gave up on this peer and
	// cleared when its queue next runs empty.
	enqueued, finished uint64
	lagging            bool

	// writeMu is held by whoever writes to conn: the writer goroutine, or a
	// sender in flushInline. It guards the fields below.
	writeMu      sync.Mutex
	tail         []byte // the unwritten rest of an inline write that timed out
	tailMessages int    // messages that tail completes
	buf          []byte
	batch        [][][]byte
}

// maxWrite bounds the bytes the writer takes from the queue for one write.
const maxWrite = 1 << 20

func messageSize(frames [][]byte) int {
	n := 0
	for _, f := range frames {
		n += len(f) + 9
	}
	return n
}

func (p *Peer) close() {
	p.once.Do(func() {
		close(p.closed)
		p.conn.Close()
		if p.s != nil {
			p.s.notifyProgress()
		}
	})
}

// enqueue adds frames to p's queue; wake wakes the writer goroutine
// (callers that do not flushInline right after).
func (p *Peer) enqueue(frames [][]byte, dropOldest, wake bool) error {
	p.mu.Lock()
	select {
	case <-p.closed:
		p.mu.Unlock()
		return ErrPeerGone
	default:
	}
	size := messageSize(frames)
	for len(p.queue) > 0 && (len(p.queue) >= p.s.opts.QueueLen || p.queued+size > p.s.opts.QueueBytes) {
		if !dropOldest {
			p.mu.Unlock()
			return ErrQueueFull
		}
		p.queued -= messageSize(p.queue[0])
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.dropped++
		p.finished++
		if p.dropped == 1 || p.dropped%1000 == 0 {
			p.s.log.Warn("slow subscriber: dropping oldest messages", "dropped", p.dropped)
		}
	}
	p.queue = append(p.queue, frames)
	p.queued += size
	p.enqueued++
	p.mu.Unlock()
	if wake {
		p.wakeWriter()
	}
	return nil
}

func (p *Peer) isClosed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

func (p *Peer) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return false
	default:
	}
	return len(p.queue) > 0 || p.writing
}

// writeLoop writes queued messages whenever woken, until the peer closes.
func (p *Peer) writeLoop() {
	defer p.s.wg.Done()
	for {
		select {
		case <-p.wake:
		case <-p.closed:
			return
		}
		p.writeMu.Lock()
		ok := p.drain(false)
		p.writeMu.Unlock()
		if !ok {
			return
		}
	}
}

// inlineWriteTimeout bounds a write made by a sender rather than the
// writer goroutine (see flushInline): a peer that is not taking bytes
// leaves the rest to the writer goroutine after this long.
const inlineWriteTimeout = 5 * time.Millisecond

// flushInline writes what is queued for p from the calling goroutine,
// unless another goroutine is writing to p: on an idle machine that spares
// a hand-off to the writer goroutine, and under load a wait for it to be
// scheduled.
func (p *Peer) flushInline() {
	if !p.writeMu.TryLock() {
		// The writer goroutine is writing: it goes on until the queue is
		// empty, but it may be just past its last look at the queue.
		p.wakeWriter()
		return
	}
	defer p.writeMu.Unlock()
	p.drain(true)
}

func (p *Peer) wakeWriter() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// drain writes the queue until it is empty, coalescing up to maxWrite
// bytes of messages into one write. It runs with writeMu held. Inline (a
// sender's flushInline), a write that times out leaves its unwritten rest in
// p.tail for the writer goroutine, which writes it first. Otherwise a failed
// write disconnects the peer and drain returns false.
func (p *Peer) drain(inline bool) bool {
	if len(p.tail) > 0 {
		if inline {
			return true
		}
		if !p.write(p.tail, p.s.opts.WriteTimeout) {
			return false
		}
		p.tail = nil
		p.finish(p.tailMessages)
	}
	for {
		p.mu.Lock()
		batch := p.batch[:0]
		taken := 0
		for len(p.queue) > 0 && (len(batch) == 0 || taken+messageSize(p.queue[0]) <= maxWrite) {
			taken += messageSize(p.queue[0])
			batch = append(batch, p.queue[0])
			p.queue[0] = nil
			p.queue = p.queue[1:]
		}
		p.queued -= taken
		p.writing = len(batch) > 0
		p.mu.Unlock()
		p.batch = batch
		if len(batch) == 0 {
			return true
		}
		buf := p.buf[:0]
		for _, frames := range batch {
			buf = AppendMessage(buf, frames)
		}
		clear(batch)
		if cap(buf) <= 2*maxWrite {
			p.buf = buf
		} else {
			p.buf = nil // do not hold on to one huge message
		}
		if inline {
			p.conn.SetWriteDeadline(time.Now().Add(inlineWriteTimeout))
			n, err := p.conn.Write(buf)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				p.tail = append([]byte(nil), buf[n:]...)
				p.tailMessages = len(batch)
				p.wakeWriter()
				return true
			}
			if err != nil {
				p.fail(err)
				return false
			}
		} else if !p.write(buf, p.s.opts.WriteTimeout) {
			return false
		}
		p.finish(len(batch))
	}
}

// write writes b within timeout, disconnecting the peer on failure.
func (p *Peer) write(b []byte, timeout time.Duration) bool {
	p.conn.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := p.conn.Write(b); err != nil {
		p.fail(err)
		return false
	}
	return true
}

// fail disconnects the peer after a failed write.
func (p *Peer) fail(err error) {
	select {
	case <-p.closed:
	default:
		p.s.log.Warn("send failed; disconnecting peer", "err", err)
	}
	p.close()
}

// finish records n messages as written and wakes WaitWritten.
func (p *Peer) finish(n int) {
	p.mu.Lock()
	p.finished += uint64(n)
	p.writing = false
	if len(p.queue) == 0 {
		p.lagging = false
	}
	p.mu.Unlock()
	p.s.notifyProgress()
}

// readLoop reads messages until the connection fails.
func (p *Peer) readLoop() {
	r := bufio.NewReaderSize(p.conn, 32<<10)
	for {
		frames, cmd, err := readMessage(r, p.s.opts.MaxFrame, p.s.opts.MaxMessage)
		if err != nil {
			select {
			case <-p.closed:
			default:
				if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					p.s.log.Warn("receive failed; disconnecting Peer", "err", err)
				}
			}
			return
		}
		if cmd {
			p.command(frames[0])
			continue
		}
		switch p.s.kind {
		case Pub:
			if len(frames) == 1 && len(frames[0]) > 0 && frames[0][0] <= 1 {
				p.subscribe(frames[0][0] == 1, frames[0][1:])
			}
		case Rep:
			if err := p.enqueue(frames, true, true); err != nil {
				return
			}
		case Router:
			select {
			case p.s.inbox <- Inbound{From: p, Frames: frames}:
			case <-p.closed:
				return
			case <-p.s.done:
				return
			}
		}
	}
}

// command handles a ZMTP command frame: SUBSCRIBE and CANCEL on pub sockets
// (ZMTP 3.1 peers); others are ignored.
func (p *Peer) command(body []byte) {
	if len(body) == 0 || int(body[0]) >= len(body) {
		return
	}
	name, data := string(body[1:1+int(body[0])]), body[1+int(body[0]):]
	if p.s.kind != Pub {
		return
	}
	switch name {
	case zmq4.CmdSubscribe:
		p.subscribe(true, data)
	case zmq4.CmdCancel:
		p.subscribe(false, data)
	}
}

func (p *Peer) subscribe(on bool, topic []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.topics = append(p.topics, append([]byte{}, topic...))
		p.s.notifySubscribed()
		return
	}
	for i, t := range p.topics {
		if string(t) == string(topic) {
			p.topics = append(p.topics[:i], p.topics[i+1:]...)
			return
		}
	}
}

func (p *Peer) hasTopics() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.topics) > 0
}

func (p *Peer) subscribed(topic []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.topics {
		if len(t) <= len(topic) && string(topic[:len(t)]) == string(t) {
			return true
		}
	}
	return false
}

// ZMTP frame flags.
const (
	flagMore    = 0x01
	flagLong    = 0x02
	flagCommand = 0x04
)

// AppendMessage appends the ZMTP encoding of a multipart message to buf.
func AppendMessage(buf []byte, frames [][]byte) []byte {
	for i, f := range frames {
		var flag byte
		if i < len(frames)-1 {
			flag |= flagMore
		}
		if len(f) > 255 {
			buf = append(buf, flag|flagLong)
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
		} else {
			buf = append(buf, flag, byte(len(f)))
		}
		buf = append(buf, f...)
	}
	return buf
}

// readMessage reads one ZMTP message (or command) of at most MaxMessage
// bytes, no frame longer than MaxFrame.
func readMessage(r *bufio.Reader, maxFrame, maxMessage int) (frames [][]byte, cmd bool, err error) {
	total := 0
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(r, hdr[:2]); err != nil {
			return nil, false, err
		}
		flag := hdr[0]
		if flag&^(flagMore|flagLong|flagCommand) != 0 {
			return nil, false, fmt.Errorf("bad frame flags %#x", flag)
		}
		size := uint64(hdr[1])
		if flag&flagLong != 0 {
			if _, err := io.ReadFull(r, hdr[2:9]); err != nil {
				return nil, false, err
			}
			size = binary.BigEndian.Uint64(hdr[1:9])
		}
		if size > uint64(maxFrame) || total+int(size) > maxMessage {
			return nil, false, fmt.Errorf("frame of %d bytes exceeds the limit", size)
		}
		total += int(size)
		f := make([]byte, size)
		if _, err := io.ReadFull(r, f); err != nil {
			return nil, false, err
		}
		if flag&flagCommand != 0 {
			if len(frames) > 0 || flag&flagMore != 0 {
				return nil, false, errors.New("command frame inside a message")
			}
			return [][]byte{f}, true, nil
		}
		frames = append(frames, f)
		if flag&flagMore == 0 {
			return frames, false, nil
		}
	}
}

// NullSecurity is ZMTP's NULL mechanism: exchange READY metadata, no
// encryption. (zmq4's own is unexported.)
type NullSecurity struct{}

func (NullSecurity) Type() zmq4.SecurityType { return zmq4.NullSecurity }

func (NullSecurity) Handshake(conn *zmq4.Conn, server bool) error {
	raw, err := conn.Meta.MarshalZMTP()
	if err != nil {
		return fmt.Errorf("marshalling metadata: %w", err)
	}
	if err := conn.SendCmd(zmq4.CmdReady, raw); err != nil {
		return fmt.Errorf("sending READY: %w", err)
	}
	cmd, err := conn.RecvCmd()
	if err != nil {
		return fmt.Errorf("receiving READY: %w", err)
	}
	if cmd.Name != zmq4.CmdReady {
		return fmt.Errorf("got %q command, want READY", cmd.Name)
	}
	return conn.Peer.Meta.UnmarshalZMTP(cmd.Body)
}

func (NullSecurity) Encrypt(w io.Writer, data []byte) (int, error) { return w.Write(data) }
func (NullSecurity) Decrypt(w io.Writer, data []byte) (int, error) { return w.Write(data) }
