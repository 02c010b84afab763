package score

import "testing"

func TestBreakdownGroupsAndOrders(t *testing.T) {
	t.Parallel()
	per := []Counts{{TP: 1, FN: 1}, {TP: 2}, {FN: 2}, {TP: 3, FN: 1}}
	groups := Breakdown(per, []string{"10", "2", "10", "3"}, 0, 0)
	want := []struct {
		value     string
		n, tp, fn int
	}{{"2", 1, 2, 0}, {"3", 1, 3, 1}, {"10", 2, 1, 3}} // numeric order, not "10" < "2"
	if len(groups) != len(want) {
		t.Fatalf("groups %+v", groups)
	}
	for i, w := range want {
		g := groups[i]
		if g.Value != w.value || g.Conversations != w.n || g.Counts.TP != w.tp || g.Counts.FN != w.fn || g.CIs != nil {
			t.Errorf("group %d = %+v, want %+v", i, g, w)
		}
	}
	named := Breakdown(per, []string{"narrative", "casual", "casual", "argumentative"}, 100, 1)
	if named[0].Value != "argumentative" || named[1].Value != "casual" || named[1].CIs == nil {
		t.Errorf("alphabetical groups with intervals expected: %+v", named)
	}
}

func TestAttributes(t *testing.T) {
	t.Parallel()
	a, err := ParseAttributes([]byte(`{"c1": {"speakers": 3, "type": "casual"}, "c2": {"speakers": 2.5e0, "type": "narrative"}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := a.Values([]string{"c2", "c1"}, "speakers")
	if err != nil || v[0] != "2.5" || v[1] != "3" {
		t.Errorf("values %v %v", v, err)
	}
	if _, err := a.Values([]string{"c1"}, "snr"); err == nil || err.Error() != `conversation "c1" has no attribute "snr"` {
		t.Errorf("missing attribute: %v", err)
	}
	if _, err := ParseAttributes([]byte(`{"c1": {"x": [1]}}`)); err == nil || err.Error() != `conversation "c1" attribute "x": want a string or a number` {
		t.Errorf("bad value: %v", err)
	}
}

func FuzzParseAttributes(f *testing.F) {
	f.Add([]byte(`{"c1": {"speakers": 3, "type": "casual"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseAttributes(data); err != nil && len(err.Error()) == 0 {
			t.Fatal("empty error")
		}
	})
}
