package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floorbench/floorbench/internal/backoff"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Options are a client's operational settings; zero fields take the
// defaults below.
type Options struct {
	Concurrency int           // requests in flight at once
	Timeout     time.Duration // deadline of one attempt
	Attempts    int           // tries of one request before its error is returned
	Backoff     time.Duration // first wait between tries, doubled each time up to MaxBackoff
	// MaxRetryAfter caps the wait an answer's Retry-After asks for
	// (limits.RetryAfter).
	MaxRetryAfter time.Duration
	// Notice, if set, is told in one line the first time a Retry-After
	// makes the client wait noticeWait or longer, or asks for longer
	// than MaxRetryAfter, so that a user is not left without a word.
	Notice io.Writer
}

// noticeWait is the shortest wait Options.Notice is told of.
const noticeWait = 5 * time.Second

// Defaults of Options.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 2 * time.Minute
	DefaultAttempts    = 6
	DefaultBackoff     = time.Second
	MaxBackoff         = 30 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = limits.Default().RetryAfter()
	}
	return o
}

// Client sends requests to one endpoint.
type Client struct {
	endpoint string
	key      credential.Secret
	opts     Options
	http     *http.Client
	slots    chan struct{}
	requests atomic.Int64
	noticed  sync.Once // Notice was told of a long wait
}

// New returns a client of the API at endpoint (an http or https URL such
// as http://127.0.0.1:8000/v1), sending key when it is not empty.
func New(endpoint string, key credential.Secret, o Options) (*Client, error) {
	if err := CheckEndpoint(endpoint); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	// Keep a connection per request in flight rather than the default two.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = o.Concurrency
	return &Client{endpoint: strings.TrimSuffix(endpoint, "/"), key: key, opts: o,
		http: &http.Client{Transport: t, CheckRedirect: credential.NoRedirect}, slots: make(chan struct{}, o.Concurrency)}, nil
}

// CheckEndpoint accepts an http or https URL with a host and no query or
// fragment; the error does not quote the URL, which may hold credentials.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("want an http or https URL with a host and no query, such as http://127.0.0.1:8000/v1")
	}
	return nil
}

// Requests is how many HTTP requests the client has sent, retries included.
func (c *Client) Requests() int64 { return c.requests.Load() }

// Where names the endpoint in messages: its URL without user information.
func (c *Client) Where() string {
	u, _ := url.Parse(c.endpoint)
	u.User = nil
	return u.String()
}

// StatusError is an answer other than 200 that retrying does not mend, or
// the last of the retried ones.
type StatusError struct {
	Code int
	URL  string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s answered %d %s", e.URL, e.Code, http.StatusText(e.Code))
	if e.Code/100 == 3 {
		msg += " (redirects are not followed: the key would go with them)"
	}
	return msg
}

// post sends body to path and returns the answer's body, read up to limit
// bytes, retrying what is worth retrying.
func (c *Client) post(ctx context.Context, path string, body []byte, limit int64) ([]byte, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.slots }()
	waits := backoff.Doubling{First: c.opts.Backoff, Max: MaxBackoff}
	var last error
	for attempt := 1; ; attempt++ {
		data, retryAfter, err := c.once(ctx, path, body, limit)
		if err == nil {
			return data, nil
		}
		last = err
		if retryAfter < 0 || attempt == c.opts.Attempts || ctx.Err() != nil {
			break
		}
		pause := max(waits.Next(), retryAfter)
		c.notice(pause, retryAfter == c.opts.MaxRetryAfter, last)
		if err := backoff.Sleep(ctx, pause); err != nil {
			return nil, err
		}
	}
	return nil, last
}

// once makes one attempt. retryAfter is negative when retrying cannot
// help, else the least wait the server asked for.
func (c *Client) once(ctx context.Context, path string, body []byte, limit int64) (_ []byte, retryAfter time.Duration, _ error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	where := c.Where() + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+path, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("%s: %w", where, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+string(c.key))
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		// Transport errors name the URL as given; say it without credentials.
		return nil, 0, fmt.Errorf("%s: request failed (%s)", where, c.transportReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		e := &StatusError{Code: resp.StatusCode, URL: where}
		if retryable(resp.StatusCode) {
			return nil, retryAfterOf(resp.Header, c.opts.MaxRetryAfter), e
		}
		return nil, -1, e
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: answer cut off (%s)", where, c.transportReason(err))
	}
	if int64(len(data)) > limit {
		return nil, -1, fmt.Errorf("%s: answer longer than %d bytes", where, limit)
	}
	return data, 0, nil
}

func retryable(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// retryAfterOf reads a Retry-After in seconds, capped at most.
func retryAfterOf(h http.Header, most time.Duration) time.Duration {
	s, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || s < 0 {
		return 0
	}
	if time.Duration(s) > most/time.Second {
		return most
	}
	return time.Duration(s) * time.Second
}

// notice tells Options.Notice, once, of a wait before a retry that is
// capped or of noticeWait or longer, and why.
func (c *Client) notice(wait time.Duration, capped bool, why error) {
	if c.opts.Notice == nil || (wait < noticeWait && !capped) {
		return
	}
	c.noticed.Do(func() {
		fmt.Fprintf(c.opts.Notice, "%s: waiting %v before trying again, as the endpoint asked (at most %v, limits.retry_after_s)\n",
			why, wait, c.opts.MaxRetryAfter)
	})
}

// transportReason says why a request failed without the URL the
// library's error repeats, and scrubbed (redact.Peer): it may quote what
// the endpoint sent.
func (c *Client) transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within the deadline"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return redact.Peer(err.Error(), string(c.key))
}
