package childenv

import (
	"slices"
	"testing"
)

func TestMinimalKeepsOnlyWhatProgramsNeed(t *testing.T) {
	env := map[string]string{
		"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "ESPEAK_DATA_PATH": "/opt/espeak",
		"FLOORBENCH_S3_SECRET_KEY": "s", "FLOORBENCH_TEMPORAL_API_KEY": "k", "AWS_SECRET_ACCESS_KEY": "a", "TEMPORAL_ADDRESS": "remote:7233",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got := Minimal(lookup, "ESPEAK_DATA_PATH")
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "ESPEAK_DATA_PATH=/opt/espeak"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
