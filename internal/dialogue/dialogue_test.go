package dialogue

import "testing"

func TestValidIDRejectsPathsAndOddNames(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", ".hidden", "A", "x y", "a\\b", "..", "-x"} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
	for _, id := range []string{"mptb-2p-casual-00", "tiny_1", "x"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
}
