package kernel

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestSigner(t *testing.T) {
	// RFC 4231 test case 2, the message split across the four signed parts.
	const want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	parts := [][]byte{[]byte("what do ya"), []byte(" want "), []byte("for "), []byte("nothing?")}
	s, err := newSigner("hmac-sha256", "Jefe")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.sign(parts...)); got != want {
		t.Fatalf("sign = %s, want %s", got, want)
	}
	tests := []struct {
		name string
		sig  string
		ok   bool
	}{
		{"exact", want, true},
		{"upper case hex", strings.ToUpper(want), true},
		{"one digit changed", want[:10] + "0" + want[11:], false},
		{"truncated", want[:63], false},
		{"empty", "", false},
		{"not hex", strings.Repeat("z", 64), false},
	}
	for _, tc := range tests {
		if got := s.verify([]byte(tc.sig), parts...); got != tc.ok {
			t.Errorf("%s: verify = %v, want %v", tc.name, got, tc.ok)
		}
	}
	unsigned, _ := newSigner("hmac-sha256", "")
	if sig := unsigned.sign(parts...); len(sig) != 0 {
		t.Errorf("empty key signs: %q", sig)
	}
	if !unsigned.verify([]byte("anything"), parts...) {
		t.Error("empty key rejects a message")
	}
	if _, err := newSigner("hmac-md5", "k"); err == nil {
		t.Error("unsupported scheme accepted")
	}
}

// wire builds frames from strings, signing with s if sig is "sign".
func wire(s *signer, idents []string, sig, header, parent, metadata, content string, buffers ...string) [][]byte {
	var f [][]byte
	for _, id := range idents {
		f = append(f, []byte(id))
	}
	sb := []byte(sig)
	if sig == "sign" {
		sb = s.sign([]byte(header), []byte(parent), []byte(metadata), []byte(content))
	}
	f = append(f, []byte(delimiter), sb, []byte(header), []byte(parent), []byte(metadata), []byte(content))
	for _, b := range buffers {
		f = append(f, []byte(b))
	}
	return f
}

func TestDecodeMessage(t *testing.T) {
	s, _ := newSigner("hmac-sha256", "secret")
	const hdr = `{"msg_id":"1","session":"s","username":"u","date":"","msg_type":"execute_request","version":"5.3"}`
	tests := []struct {
		name    string
		frames  [][]byte
		wantErr string
	}{
		{"ok", wire(s, []string{"id"}, "sign", hdr, "{}", "{}", `{"code":"x"}`), ""},
		{"ok with buffers", wire(s, nil, "sign", hdr, "{}", "{}", `{}`, "buf1", "buf2"), ""},
		{"no delimiter", [][]byte{[]byte("a"), []byte("b")}, "delimiter"},
		{"short", wire(s, nil, "sign", hdr, "{}", "{}", "{}")[:4], "fewer"},
		{"bad signature", wire(s, nil, "00", hdr, "{}", "{}", "{}"), "signature"},
		{"bad header json", wire(s, nil, "sign", `{"msg_type":`, "{}", "{}", "{}"), "header"},
		{"no msg_type", wire(s, nil, "sign", `{"msg_id":"1"}`, "{}", "{}", "{}"), "msg_type"},
		{"content not object", wire(s, nil, "sign", hdr, "{}", "{}", `[1]`), "content"},
		{"parent not json", wire(s, nil, "sign", hdr, "{", "{}", `{}`), "parent_header"},
		{"metadata null", wire(s, nil, "sign", hdr, "{}", "null", `{}`), "metadata"},
	}
	for _, tc := range tests {
		m, err := decodeMessage(tc.frames, s)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want one mentioning %q (message %+v)", tc.name, err, tc.wantErr, m)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, key := range []string{"", "k3y"} {
		s, _ := newSigner("hmac-sha256", key)
		m := &Message{
			Identities:   [][]byte{[]byte("peer"), {}},
			Header:       Header{MsgID: "m1", Session: "s", Username: "u", Date: "2026-01-01T00:00:00Z", MsgType: "stream", Version: "5.3"},
			ParentHeader: json.RawMessage(`{"msg_id":"p"}`),
			Metadata:     json.RawMessage(`{"a":1}`),
			Content:      json.RawMessage(`{"name":"stdout","text":"é\n"}`),
			Buffers:      [][]byte{{0, 1, 2}},
		}
		frames, err := m.encode(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeMessage(frames, s)
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		if got.Header != m.Header || !bytes.Equal(got.Content, m.Content) || !bytes.Equal(got.ParentHeader, m.ParentHeader) ||
			!bytes.Equal(got.Metadata, m.Metadata) || len(got.Identities) != 2 || len(got.Buffers) != 1 || !bytes.Equal(got.Buffers[0], m.Buffers[0]) {
			t.Errorf("key %q: round trip changed the message:\n got %+v\nwant %+v", key, got, m)
		}
	}
}

// splitFrames turns fuzz input into frames separated by the byte pair 0xff 0x00.
func splitFrames(data []byte) [][]byte {
	return bytes.Split(data, []byte{0xff, 0x00})
}

func FuzzDecodeMessage(f *testing.F) {
	s, _ := newSigner("hmac-sha256", "fuzz")
	join := func(frames [][]byte) []byte { return bytes.Join(frames, []byte{0xff, 0x00}) }
	const hdr = `{"msg_id":"1","session":"s","username":"u","date":"","msg_type":"kernel_info_request","version":"5.3"}`
	f.Add(join(wire(s, []string{"id"}, "sign", hdr, "{}", "{}", "{}")))
	f.Add(join(wire(s, nil, "sign", hdr, `{"msg_id":"0"}`, `{"x":[1,2]}`, `{"code":"fit m"}`, "buffer")))
	f.Add(join(wire(s, nil, "bad", hdr, "{}", "{}", "{}")))
	f.Add(join(wire(s, nil, "sign", `{"msg_type":1}`, "{}", "{}", "{}")))
	f.Add([]byte("<IDS|MSG>"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMessage(splitFrames(data), s)
		if err != nil {
			return
		}
		frames, err := m.encode(s)
		if err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
		again, err := decodeMessage(frames, s)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if again.Header != m.Header || !bytes.Equal(again.Content, m.Content) || !bytes.Equal(again.RawHeader, m.RawHeader) {
			t.Fatalf("round trip changed the message: %+v vs %+v", again, m)
		}
	})
}

func TestRuneByteOffsets(t *testing.T) {
	const s = "aé✓😀b" // 1, 2, 3, 4, 1 bytes
	tests := []struct{ runes, bytes int }{
		{0, 0}, {1, 1}, {2, 3}, {3, 6}, {4, 10}, {5, 11},
	}
	for _, tc := range tests {
		if got := runeToByte(s, tc.runes); got != tc.bytes {
			t.Errorf("runeToByte(%d) = %d, want %d", tc.runes, got, tc.bytes)
		}
		if got := byteToRune(s, tc.bytes); got != tc.runes {
			t.Errorf("byteToRune(%d) = %d, want %d", tc.bytes, got, tc.runes)
		}
	}
	clampTests := []struct {
		name string
		got  int
		want int
	}{
		{"negative code points", runeToByte(s, -3), 0},
		{"past the end in code points", runeToByte(s, 99), len(s)},
		{"negative bytes", byteToRune(s, -1), 0},
		{"past the end in bytes", byteToRune(s, 99), 5},
		{"inside a code point", byteToRune(s, 4), 2},
	}
	for _, tc := range clampTests {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// TestReplayGuard checks that the guard remembers the latest replayHistory
// signatures, forgets older ones, and never refuses an empty signature.
func TestReplayGuard(t *testing.T) {
	var g replayGuard
	sig := func(i int) []byte { return []byte(strconv.Itoa(i)) }
	for i := 0; i < replayHistory+10; i++ {
		if g.replayed(sig(i)) {
			t.Fatalf("signature %d refused the first time", i)
		}
	}
	if !g.replayed(sig(replayHistory + 9)) {
		t.Error("the latest signature is not remembered")
	}
	if !g.replayed(sig(10)) {
		t.Error("the oldest signature kept is not remembered")
	}
	if g.replayed(sig(9)) {
		t.Error("a signature older than the history is remembered")
	}
	for range 2 { // an empty signature is never remembered
		if g.replayed(nil) {
			t.Error("an empty signature is refused")
		}
	}
	if len(g.seen) != replayHistory || len(g.ring) != replayHistory {
		t.Errorf("history of %d signatures (ring %d), want %d", len(g.seen), len(g.ring), replayHistory)
	}
}
