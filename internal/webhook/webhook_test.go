package webhook

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestMaskHidesCredentials(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:PASS@127.0.0.1:18999/hook?token=TOKEN":             "http://***@127.0.0.1:18999/hook?token=***",
		"https://ghp_TOKEN@example.com/x":                               "https://***@example.com/x",
		"https://example.com/hook?a=1&a=2&b=SECRET#frag":                "https://example.com/hook?a=***&a=***&b=***",
		"https://hooks.slack.com/services/T0000/B0000/XXXXXXXX11112222": "https://hooks.slack.com/services/T0000/B0000/***",
		"http://127.0.0.1:9000/hook":                                    "http://127.0.0.1:9000/hook",
		"http://[::1]:%zz/":                                             "(a URL that does not parse)",
	} {
		if got := Mask(raw); got != want {
			t.Errorf("Mask(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestCheckRefusesWhatCannotBeAWebhook(t *testing.T) {
	var p Policy
	for raw, want := range map[string]string{
		"http://127.0.0.1:9/hook":                       "",
		"http://[::1]:9/hook":                           "",
		"http://10.0.0.5/hook":                          "",
		"http://169.254.169.254/latest/meta-data/":      "169.254.169.254 is a link-local address",
		"http://[fe80::1]/":                             "fe80::1 is a link-local address",
		"http://[fd00:ec2::254]/":                       "fd00:ec2::254 is a cloud metadata address",
		"http://0.0.0.0:9/":                             "0.0.0.0 is the unspecified address",
		"http://127.0.0.1:9/a hook?token=SECRET":        "a space or control character at byte 20",
		"http://127.0.0.1:9/hook\n":                     "a space or control character",
		"file:///etc/passwd":                            "want an http or https URL",
		"http://u:SECRET@169.254.169.254/?token=SECRET": "--notify http://***@169.254.169.254/?token=***: ",
	} {
		err := p.Check(raw)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", raw, err, want)
		case err != nil && strings.Contains(err.Error(), "SECRET"):
			t.Errorf("%q: the error shows the secret: %v", raw, err)
		}
	}
	if err := (Policy{AllowLinkLocal: true}).Check("http://169.254.169.254/"); err != nil {
		t.Errorf("allowed link-local: %v", err)
	}
}

// A webhook that redirects has not taken the verdict: the redirect is not
// followed (the other server receives nothing) and the post fails, naming
// the URL masked.
func TestPostFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer hook.Close()
	u := strings.Replace(hook.URL, "http://", "http://u:SECRET@", 1) + "/hook?token=SECRET"
	err := Policy{}.Post(context.Background(), u, []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "307 Temporary Redirect (redirects are not followed)") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("redirect: %v", err)
	}
	if elsewhere.Load() != 0 {
		t.Errorf("the redirect was followed")
	}
	var got []byte
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got, _ = io.ReadAll(r.Body) }))
	defer ok.Close()
	if err := (Policy{}).Post(context.Background(), ok.URL+"/hook", []byte(`{"v":1}`)); err != nil || string(got) != `{"v":1}` {
		t.Errorf("post: %v, body %q", err, got)
	}
}

// The address actually connected to is checked, whatever name resolved
// to it: a link-local one is refused before any connection, and a failed
// connection's error shows the URL masked.
func TestPostChecksTheAddressItConnectsTo(t *testing.T) {
	_, err := Policy{}.client().Post("http://169.254.169.254/latest/meta-data/", "application/json", nil)
	if err == nil || !strings.Contains(err.Error(), "169.254.169.254 is a link-local address") {
		t.Errorf("link-local: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = Policy{}.Post(context.Background(), "http://u:SECRET@"+addr+"/hook?token=SECRET", nil)
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "http://***@"+addr+"/hook?token=***") {
		t.Errorf("closed port: %v", err)
	}
}

// Whatever the URL, its password and query values are not in its masked
// form, and Check never panics.
func FuzzMask(f *testing.F) {
	f.Add("http://u:p@127.0.0.1:9/hook?token=t", "SECRETPASS", "SECRETTOKEN")
	f.Add("https://example.com/x?a=1", "pw", "v")
	f.Fuzz(func(t *testing.T, base, pass, value string) {
		if len(pass) < 6 || len(value) < 6 {
			return
		}
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return
		}
		u.User = url.UserPassword("user", pass)
		q := u.Query()
		q.Set("token", value)
		u.RawQuery = q.Encode()
		raw := u.String()
		_ = Policy{}.Check(raw)
		m := Mask(raw)
		for _, s := range []string{pass, value, url.QueryEscape(value), url.PathEscape(pass)} {
			if strings.Contains(m, s) && !strings.Contains(base, s) && !strings.Contains("user***", s) {
				t.Fatalf("Mask(%q) = %q shows %q", raw, m, s)
			}
		}
	})
}

// What a receiver sends back (its status line, a malformed answer) is
// scrubbed: the URL's secrets, sent to it, come back in no error, nor
// do control characters.
func TestAReceiversAnswerNeverCarriesTheURLsSecret(t *testing.T) {
	const token = "hooktoken7f3a9c2e51"
	for _, status := range []string{"HTTP/1.1 500 no " + token + "\x1b[2J", "HTTP/1.1 5x0 " + token} {
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			buf.WriteString(status + "\r\nContent-Length: 0\r\n\r\n")
			buf.Flush()
			conn.Close()
		}))
		err := Policy{}.Post(context.Background(), hook.URL+"/hook/"+token+"?token="+token, []byte(`{}`))
		if err == nil || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "\x1b") {
			t.Errorf("status line %q: %v", status, err)
		}
		hook.Close()
	}
}
