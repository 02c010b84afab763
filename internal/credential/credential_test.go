package credential

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A Secret prints as [redacted] in every fmt form and in JSON, and one
// missing from the environment is an error naming the variable.
func TestSecretNeverPrints(t *testing.T) {
	const key = "sk-live-0123456789"
	s := struct{ Key Secret }{Secret(key)}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, printed := range []string{fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s.Key, s.Key, s.Key), string(data)} {
		if strings.Contains(printed, key) || !strings.Contains(printed, redacted) {
			t.Errorf("printed %s", printed)
		}
	}
	t.Setenv("FLOORBENCH_TEST_CREDENTIAL", "")
	if _, err := FromEnv("FLOORBENCH_TEST_CREDENTIAL"); err == nil || !strings.Contains(err.Error(), "FLOORBENCH_TEST_CREDENTIAL is not set") {
		t.Errorf("an unset credential: %v", err)
	}
	t.Setenv("FLOORBENCH_TEST_CREDENTIAL", key)
	if got, err := FromEnv("FLOORBENCH_TEST_CREDENTIAL"); err != nil || string(got) != key {
		t.Errorf("a set credential: %v", err)
	}
}

// A client with NoRedirect answers with the redirect and never asks the
// origin it points to.
func TestNoRedirectStaysAtTheOrigin(t *testing.T) {
	asked := make(chan string, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked <- r.URL.Path }))
	defer other.Close()
	origin := httptest.NewServer(http.RedirectHandler(other.URL+"/elsewhere", http.StatusFound))
	defer origin.Close()
	resp, err := (&http.Client{CheckRedirect: NoRedirect}).Get(origin.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want the redirect's 302", resp.StatusCode)
	}
	select {
	case p := <-asked:
		t.Errorf("the client followed the redirect to %s", p)
	default:
	}
}
