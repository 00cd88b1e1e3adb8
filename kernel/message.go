package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
)

// delimiter separates the routing identities from the signed message parts.
const delimiter = "<IDS|MSG>"

// protocolVersion is the Jupyter messaging protocol version the kernel speaks.
const protocolVersion = "5.3"

// Header is a Jupyter message header.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one decoded Jupyter message. ParentHeader, Metadata and Content
// are kept as raw JSON objects; RawHeader is the header frame as received, so
// replies can echo it byte for byte as their parent_header.
type Message struct {
	Identities   [][]byte
	Header       Header
	RawHeader    json.RawMessage
	ParentHeader json.RawMessage
	Metadata     json.RawMessage
	Content      json.RawMessage
	Buffers      [][]byte
	// Signature is the signature frame as received (empty when unsigned).
	Signature []byte
}

// signer computes and checks message signatures. A nil key means messages are
// neither signed nor checked.
type signer struct {
	key     []byte
	newHash func() hash.Hash
}

// newSigner returns the signer for a connection file's signature_scheme and
// key. An empty key disables signing whatever the scheme.
func newSigner(scheme, key string) (*signer, error) {
	s := &signer{}
	if key == "" {
		return s, nil
	}
	switch scheme {
	case "hmac-sha256", "":
		s.newHash = sha256.New
	case "hmac-sha512":
		s.newHash = sha512.New
	case "hmac-sha1":
		s.newHash = sha1.New
	default:
		return nil, fmt.Errorf("kernel: unsupported signature_scheme %q", scheme)
	}
	s.key = []byte(key)
	return s, nil
}

// sign returns the lower-case hex HMAC of the four signed parts (header,
// parent header, metadata, content), or an empty signature without a key.
func (s *signer) sign(parts ...[]byte) []byte {
	if s.key == nil {
		return []byte{}
	}
	mac := hmac.New(s.newHash, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// verify reports whether sig signs parts, comparing in constant time.
func (s *signer) verify(sig []byte, parts ...[]byte) bool {
	if s.key == nil {
		return true
	}
	return hmac.Equal(s.sign(parts...), bytes.ToLower(sig))
}

// Decoding errors; they are logged and the message dropped.
var (
	errNoDelimiter  = errors.New("no <IDS|MSG> delimiter")
	errShortMessage = errors.New("fewer than five frames after the delimiter")
	errSignature    = errors.New("signature does not verify")
	errReplayed     = errors.New("a message with this signature was received before (a replay)")
)

// decodeMessage parses the frames of a wire message and checks its signature.
// It never panics, whatever the frames.
func decodeMessage(frames [][]byte, s *signer) (*Message, error) {
	d := -1
	for i, f := range frames {
		if string(f) == delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, errNoDelimiter
	}
	if len(frames)-d-1 < 5 {
		return nil, errShortMessage
	}
	sig, header, parent, metadata, content := frames[d+1], frames[d+2], frames[d+3], frames[d+4], frames[d+5]
	if !s.verify(sig, header, parent, metadata, content) {
		return nil, errSignature
	}
	m := &Message{}
	if err := json.Unmarshal(header, &m.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("header: empty msg_type")
	}
	for _, part := range []struct {
		name string
		b    []byte
	}{{"header", header}, {"parent_header", parent}, {"metadata", metadata}, {"content", content}} {
		if !isJSONObject(part.b) {
			return nil, fmt.Errorf("%s is not a JSON object", part.name)
		}
	}
	m.Signature = bytes.ToLower(bytes.Clone(sig))
	m.Identities = cloneFrames(frames[:d])
	m.RawHeader = bytes.Clone(header)
	m.ParentHeader = bytes.Clone(parent)
	m.Metadata = bytes.Clone(metadata)
	m.Content = bytes.Clone(content)
	if rest := frames[d+6:]; len(rest) > 0 {
		m.Buffers = cloneFrames(rest)
	}
	return m, nil
}

// encode returns the wire frames of m, signed by s. The header frame is
// RawHeader if set, else the JSON of Header.
func (m *Message) encode(s *signer) ([][]byte, error) {
	header := []byte(m.RawHeader)
	if header == nil {
		var err error
		if header, err = json.Marshal(&m.Header); err != nil {
			return nil, fmt.Errorf("kernel: encoding header: %w", err)
		}
	}
	parent, metadata, content := orEmpty(m.ParentHeader), orEmpty(m.Metadata), orEmpty(m.Content)
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(delimiter), s.sign(header, parent, metadata, content), header, parent, metadata, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

func orEmpty(b json.RawMessage) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func cloneFrames(frames [][]byte) [][]byte {
	out := make([][]byte, len(frames))
	for i, f := range frames {
		out[i] = bytes.Clone(f)
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	return out
}

// replayGuard remembers the signatures of the latest messages received, so
// that a message received again is dropped, as jupyter_client's Session
// does (its digest_history): without it, anyone who could see a signed
// execute_request on the wire could have the kernel run it again. Unsigned
// messages (an empty key) are not checked.
type replayGuard struct {
	mu   sync.Mutex
	seen map[string]struct{}
	ring []string // the signatures in seen, oldest first from next
	next int
}

// replayHistory is how many signatures replayGuard keeps: jupyter_client's
// digest_history_size.
const replayHistory = 1 << 16

// replayed records sig and reports whether it was seen before.
func (g *replayGuard) replayed(sig []byte) bool {
	if len(sig) == 0 {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	key := string(sig)
	if _, ok := g.seen[key]; ok {
		return true
	}
	if g.seen == nil {
		g.seen = make(map[string]struct{})
	}
	if len(g.ring) < replayHistory {
		g.ring = append(g.ring, key)
	} else {
		delete(g.seen, g.ring[g.next])
		g.ring[g.next] = key
		g.next = (g.next + 1) % replayHistory
	}
	g.seen[key] = struct{}{}
	return false
}
