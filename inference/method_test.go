package inference

import "testing"

func TestMethodNames(t *testing.T) {
	want := []string{"gibbs", "hmc", "px", "interweave"}
	ms := Methods()
	if len(ms) != len(want) {
		t.Fatalf("Methods() = %v, want %d methods", ms, len(want))
	}
	for i, m := range ms {
		if m.String() != want[i] {
			t.Errorf("Methods()[%d] = %q, want %q", i, m, want[i])
		}
		if got, ok := ParseMethod(m.String()); !ok || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v; want %v", m, got, ok, m)
		}
	}
	for _, bad := range []string{"", "auto", "Gibbs", "unknown"} {
		if m, ok := ParseMethod(bad); ok {
			t.Errorf("ParseMethod(%q) = %v, want none", bad, m)
		}
	}
	if s := Method(-1).String(); s != "unknown" {
		t.Errorf("Method(-1) = %q, want unknown", s)
	}
	if s := Method(len(want)).String(); s != "unknown" {
		t.Errorf("Method(%d) = %q, want unknown", len(want), s)
	}
}
