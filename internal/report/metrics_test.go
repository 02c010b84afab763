package report

import (
	"encoding/json"
	"math"
	"testing"
)

// recall_within_ms is an object in ascending budget order (not the
// string order of its keys), null for an undefined recall, and reads
// back in budget order whatever order the keys come in.
func TestRecallWithinJSON(t *testing.T) {
	r := RecallWithin{{250, 0.5}, {500, Num(math.NaN())}, {1000, 0.75}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"250":0.5,"500":null,"1000":0.75}`; string(data) != want {
		t.Errorf("JSON %s, want %s", data, want)
	}
	var back RecallWithin
	if err := json.Unmarshal([]byte(`{"1000":0.75,"250":0.5,"500":null}`), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0] != r[0] || back[2] != r[2] || back[1].BudgetMS != 500 || !math.IsNaN(back.At(500)) {
		t.Errorf("read back %+v", back)
	}
	if !math.IsNaN(back.At(100)) {
		t.Error("a budget it does not have reads as a number")
	}
	for _, bad := range []string{`{"fast":0.5}`, `{"-5":0.5}`, `[0.5]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s read without error", bad)
		}
	}
}
