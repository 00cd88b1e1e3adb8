package kernel

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// The kernel listens on its sockets itself instead of using zmq4's socket
// types: zmq4 v0.17.0's PUB socket sends to every subscriber in turn from one
// goroutine with no deadline, so one subscriber that stops reading stalls
// iopub for everybody, and its ROUTER holds a lock while writing to a peer.
// Here every peer has its own writer goroutine and bounded queue; iopub drops
// the oldest message for a subscriber whose queue is full, and a peer that
// accepts no bytes for writeTimeout is disconnected. zmq4 performs the ZMTP
// 3.0 handshake; framing after it is the few lines below.

// socketKind is the ZeroMQ socket type a kernel socket plays.
type socketKind int

const (
	routerSocket socketKind = iota // shell, control, stdin
	pubSocket                      // iopub
	repSocket                      // heartbeat: echoes every message
)

func (k socketKind) zmqType() zmq4.SocketType {
	switch k {
	case pubSocket:
		return zmq4.Pub
	case repSocket:
		return zmq4.Rep
	default:
		return zmq4.Router
	}
}

// socketOptions bound what one peer may cost.
type socketOptions struct {
	queueLen         int           // messages waiting per peer
	queueBytes       int           // bytes waiting per peer
	writeTimeout     time.Duration // a peer that takes no bytes this long is dropped
	handshakeTimeout time.Duration
	maxFrame         int // bytes in one received frame
	maxMessage       int // bytes in one received message
}

func defaultSocketOptions() socketOptions {
	return socketOptions{
		queueLen:         4096,
		queueBytes:       64 << 20,
		writeTimeout:     30 * time.Second,
		handshakeTimeout: 10 * time.Second,
		maxFrame:         256 << 20,
		maxMessage:       512 << 20,
	}
}

// Send errors.
var (
	errPeerGone  = errors.New("peer disconnected")
	errQueueFull = errors.New("peer send queue full")
)

// inbound is a message received on a router socket.
type inbound struct {
	from   *peer
	frames [][]byte
}

// zsocket is a listening ZeroMQ socket with its connected peers.
type zsocket struct {
	name     string
	kind     socketKind
	opts     socketOptions
	log      *slog.Logger
	ln       net.Listener
	unixPath string
	inbox    chan inbound // router sockets only
	done     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]*peer // nil value: handshake in progress
}

// listenSocket binds a socket of the given kind and starts accepting peers.
func listenSocket(name string, kind socketKind, network, address string, opts socketOptions, log *slog.Logger) (*zsocket, error) {
	if network == "unix" {
		if fi, err := os.Lstat(address); err == nil && fi.Mode()&os.ModeSocket != 0 {
			os.Remove(address) // stale socket of a dead kernel
		}
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, fmt.Errorf("kernel: %s socket: %w", name, err)
	}
	s := &zsocket{
		name:  name,
		kind:  kind,
		opts:  opts,
		log:   log.With("socket", name),
		ln:    ln,
		done:  make(chan struct{}),
		conns: make(map[net.Conn]*peer),
	}
	if network == "unix" {
		s.unixPath = address
	}
	if kind == routerSocket {
		s.inbox = make(chan inbound, 64)
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *zsocket) accept() {
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
func (s *zsocket) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	id, err := s.handshake(c)
	if err != nil {
		s.log.Warn("ZMTP handshake failed", "remote", fmt.Sprint(c.RemoteAddr()), "err", err)
		return
	}
	p := &peer{
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

// handshake performs the ZMTP greeting and NULL-mechanism READY exchange
// with zmq4 and returns the peer's identity. zmq4 may panic on malformed
// metadata; that only fails this connection.
func (s *zsocket) handshake(c net.Conn) (id string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed handshake: %v", r)
		}
	}()
	c.SetDeadline(time.Now().Add(s.opts.handshakeTimeout))
	zc, err := zmq4.Open(c, nullSecurity{}, s.kind.zmqType(), zmq4.SocketIdentity(""), true, nil)
	if err != nil {
		return "", err
	}
	c.SetDeadline(time.Time{})
	return zc.Peer.Meta["Identity"], nil
}

// publish queues frames for every subscriber whose subscription is a prefix
// of the first frame, dropping each subscriber's oldest message if its queue
// is full. It never blocks on the network.
func (s *zsocket) publish(frames [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.conns {
		if p != nil && p.subscribed(frames[0]) {
			p.enqueue(frames, true)
		}
	}
}

// sendTo queues frames for one peer. It fails at once if the peer has gone
// or its queue is full; it never blocks on the network.
func (s *zsocket) sendTo(p *peer, frames [][]byte) error {
	return p.enqueue(frames, false)
}

// peers returns the number of connected peers past the handshake.
func (s *zsocket) peers() int {
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

// flush waits until every peer's queue has been written, or timeout.
func (s *zsocket) flush(timeout time.Duration) bool {
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

// close disconnects every peer, stops listening and waits for the socket's
// goroutines.
func (s *zsocket) close() {
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

// peer is one ZMTP connection.
type peer struct {
	s        *zsocket
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

func (p *peer) close() {
	p.once.Do(func() {
		close(p.closed)
		p.conn.Close()
	})
}

func (p *peer) enqueue(frames [][]byte, dropOldest bool) error {
	p.mu.Lock()
	select {
	case <-p.closed:
		p.mu.Unlock()
		return errPeerGone
	default:
	}
	size := messageSize(frames)
	for len(p.queue) > 0 && (len(p.queue) >= p.s.opts.queueLen || p.queued+size > p.s.opts.queueBytes) {
		if !dropOldest {
			p.mu.Unlock()
			return errQueueFull
		}
		p.queued -= messageSize(p.queue[0])
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.dropped++
		if p.dropped == 1 || p.dropped%1000 == 0 {
			p.s.log.Warn("slow subscriber: dropping oldest messages", "dropped", p.dropped)
		}
	}
	p.queue = append(p.queue, frames)
	p.queued += size
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return nil
}

func (p *peer) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return false
	default:
	}
	return len(p.queue) > 0 || p.writing
}

// writeLoop writes queued messages, coalescing up to maxWrite bytes of them
// into one write.
func (p *peer) writeLoop() {
	defer p.s.wg.Done()
	var (
		buf   []byte
		batch [][][]byte
	)
	for {
		select {
		case <-p.wake:
		case <-p.closed:
			return
		}
		for {
			p.mu.Lock()
			batch = batch[:0]
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
			if len(batch) == 0 {
				break
			}
			buf = buf[:0]
			for _, frames := range batch {
				buf = appendMessage(buf, frames)
			}
			clear(batch)
			p.conn.SetWriteDeadline(time.Now().Add(p.s.opts.writeTimeout))
			if _, err := p.conn.Write(buf); err != nil {
				select {
				case <-p.closed:
				default:
					p.s.log.Warn("send failed; disconnecting peer", "err", err)
				}
				p.close()
				return
			}
			if cap(buf) > 2*maxWrite {
				buf = nil // do not hold on to one huge message
			}
		}
	}
}

// readLoop reads messages until the connection fails.
func (p *peer) readLoop() {
	r := bufio.NewReaderSize(p.conn, 32<<10)
	for {
		frames, cmd, err := readMessage(r, p.s.opts.maxFrame, p.s.opts.maxMessage)
		if err != nil {
			select {
			case <-p.closed:
			default:
				if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					p.s.log.Warn("receive failed; disconnecting peer", "err", err)
				}
			}
			return
		}
		if cmd {
			p.command(frames[0])
			continue
		}
		switch p.s.kind {
		case pubSocket:
			if len(frames) == 1 && len(frames[0]) > 0 && frames[0][0] <= 1 {
				p.subscribe(frames[0][0] == 1, frames[0][1:])
			}
		case repSocket:
			if err := p.enqueue(frames, true); err != nil {
				return
			}
		case routerSocket:
			select {
			case p.s.inbox <- inbound{from: p, frames: frames}:
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
func (p *peer) command(body []byte) {
	if len(body) == 0 || int(body[0]) >= len(body) {
		return
	}
	name, data := string(body[1:1+int(body[0])]), body[1+int(body[0]):]
	if p.s.kind != pubSocket {
		return
	}
	switch name {
	case zmq4.CmdSubscribe:
		p.subscribe(true, data)
	case zmq4.CmdCancel:
		p.subscribe(false, data)
	}
}

func (p *peer) subscribe(on bool, topic []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.topics = append(p.topics, append([]byte{}, topic...))
		return
	}
	for i, t := range p.topics {
		if string(t) == string(topic) {
			p.topics = append(p.topics[:i], p.topics[i+1:]...)
			return
		}
	}
}

func (p *peer) subscribed(topic []byte) bool {
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

// appendMessage appends the ZMTP encoding of a multipart message to buf.
func appendMessage(buf []byte, frames [][]byte) []byte {
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

// readMessage reads one ZMTP message (or command) of at most maxMessage
// bytes, no frame longer than maxFrame.
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

// nullSecurity is ZMTP's NULL mechanism: exchange READY metadata, no
// encryption. (zmq4's own is unexported.)
type nullSecurity struct{}

func (nullSecurity) Type() zmq4.SecurityType { return zmq4.NullSecurity }

func (nullSecurity) Handshake(conn *zmq4.Conn, server bool) error {
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

func (nullSecurity) Encrypt(w io.Writer, data []byte) (int, error) { return w.Write(data) }
func (nullSecurity) Decrypt(w io.Writer, data []byte) (int, error) { return w.Write(data) }
