// Package s3 is the store in an S3 bucket through minio-go (MinIO in
// clusters). It is its own package so that executables which never
// reach S3 (the floorbench front) do not link or initialise minio-go.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/floorbench/floorbench/internal/store"
)

// Config locates a bucket. Credentials are never printed or logged.
type Config struct {
	Endpoint  string // host:port, or a URL whose scheme sets Secure
	Bucket    string
	AccessKey string
	SecretKey string
	Secure    bool
	Region    string
	Prefix    string // optional key prefix inside the bucket
}

// Store stores objects in an S3 bucket through minio-go.
type Store struct {
	client    *minio.Client
	cfg       Config
	readLimit int64 // 0: the default (ReadLimit)
}

// New connects to the endpoint and checks that the bucket exists, so a
// wrong endpoint, wrong credentials or a missing bucket fail here with one
// clear error naming the bucket instead of in the middle of a sweep, or as
// an empty store. It never creates the bucket (CreateBucket does).
func New(ctx context.Context, cfg Config) (*Store, error) {
	s, err := newS3(cfg)
	if err != nil {
		return nil, err
	}
	ok, err := s.client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Describe(), describeS3Error(err))
	}
	if !ok {
		return nil, fmt.Errorf("%s: no such bucket (create it with floorbench store init, or set s3_bucket to one that exists)", s.Describe())
	}
	return s, nil
}

// WithReadLimit is s with GetBytes reading objects of at most n bytes.
func (s *Store) WithReadLimit(n int64) *Store {
	c := *s
	c.readLimit = n
	return &c
}

// ReadLimit is what WithReadLimit set (0: the default).
func (s *Store) ReadLimit() int64 { return s.readLimit }

// CreateBucket creates cfg's bucket unless it exists. Processes starting
// together may all call it: the ones that lose the race are told the
// bucket exists, which is what they wanted.
func CreateBucket(ctx context.Context, cfg Config) error {
	s, err := newS3(cfg)
	if err != nil {
		return err
	}
	if ok, err := s.client.BucketExists(ctx, cfg.Bucket); err != nil {
		return fmt.Errorf("%s: %w", s.Describe(), describeS3Error(err))
	} else if ok {
		return nil
	}
	if err := s.client.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
		if exists, err2 := s.client.BucketExists(ctx, cfg.Bucket); err2 != nil || !exists {
			return fmt.Errorf("%s: create bucket: %w", s.Describe(), describeS3Error(err))
		}
	}
	return nil
}

// newS3 is a client for cfg, not yet in touch with the server.
func newS3(cfg Config) (*Store, error) {
	endpoint := cfg.Endpoint
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		endpoint, cfg.Secure = u.Host, u.Scheme == "https"
	}
	if cfg.Bucket == "" {
		return nil, fmt.Errorf("s3: no bucket configured")
	}
	if cfg.Prefix != "" {
		if err := store.CheckPrefix(cfg.Prefix); err != nil {
			return nil, fmt.Errorf("s3 prefix: %w", err)
		}
		cfg.Prefix = strings.TrimSuffix(cfg.Prefix, "/") + "/"
	}
	client, err := minio.New(endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: cfg.Secure,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 endpoint %s: %w", endpoint, err)
	}
	return &Store{client: client, cfg: cfg}, nil
}

// Describe names the endpoint and bucket, never the credentials.
func (s *Store) Describe() string {
	return fmt.Sprintf("s3 bucket %s at %s", s.cfg.Bucket, s.client.EndpointURL().Host)
}

func (s *Store) object(key string) (string, error) {
	if err := store.CheckKey(key); err != nil {
		return "", err
	}
	return s.cfg.Prefix + key, nil
}

// streamPartSize is the part size of an upload whose length is unknown.
// minio-go otherwise sizes its buffer for the largest object S3 allows
// (about half a GiB for every such put).
const streamPartSize = 16 << 20

// Put uploads r; S3 makes the object visible only when the upload completes.
// A reader that knows its length (bytes and strings readers and buffers, a
// regular file) is uploaded with it; any other streams in parts of
// streamPartSize.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	size := store.SizeOf(r)
	if size < 0 {
		opts.PartSize = streamPartSize
	}
	body := r
	var cause *causeReader
	if _, seeks := r.(io.Seeker); !seeks {
		cause = &causeReader{r: r}
		body = cause
	}
	_, err = s.client.PutObject(ctx, s.cfg.Bucket, obj, body, size, opts)
	if err != nil {
		if cause != nil {
			if rerr := cause.cause(); rerr != nil {
				return fmt.Errorf("put %s: %w", key, rerr)
			}
		}
		return fmt.Errorf("put %s: %w", key, describeS3Error(err))
	}
	return nil
}

// causeReader remembers the first error other than EOF its reader gave:
// the cause of a failed upload (a verified reader's mismatch). The
// transport that was sending the body may report instead what that error
// did to its connection ("use of closed network connection"). Only a
// reader that cannot seek is wrapped: minio-go retries an upload from a
// seekable one, which a wrapper would hide. The transport reads the body
// on its own goroutine, hence the lock.
type causeReader struct {
	r   io.Reader
	mu  sync.Mutex
	err error
}

func (c *causeReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *causeReader) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Get opens the object; it is fetched lazily, so a missing key is
// detected with a Stat first.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	o, err := s.client.GetObject(ctx, s.cfg.Bucket, obj, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, describeS3Error(err))
	}
	if _, err := o.Stat(); err != nil {
		o.Close()
		if isNotFound(err) {
			return nil, fmt.Errorf("%s: %w", key, store.ErrNotFound)
		}
		return nil, fmt.Errorf("get %s: %w", key, describeS3Error(err))
	}
	return o, nil
}

// Stat describes the object.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	obj, err := s.object(key)
	if err != nil {
		return store.Info{}, err
	}
	st, err := s.client.StatObject(ctx, s.cfg.Bucket, obj, minio.StatObjectOptions{})
	if isNotFound(err) {
		return store.Info{}, fmt.Errorf("%s: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return store.Info{}, fmt.Errorf("stat %s: %w", key, describeS3Error(err))
	}
	return store.Info{Key: key, Size: st.Size}, nil
}

// List lists keys under prefix (sorted: S3 lists in key order).
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	var keys []string
	for o := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.cfg.Prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, describeS3Error(o.Err))
		}
		keys = append(keys, strings.TrimPrefix(o.Key, s.cfg.Prefix))
	}
	return keys, nil
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	code := minio.ToErrorResponse(err).Code
	return code == "NoSuchKey" || code == "NotFound"
}

// describeS3Error turns the common failures into messages a user can act on.
func describeS3Error(err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied":
		return fmt.Errorf("access denied: check the S3 access key and secret (%s)", minio.ToErrorResponse(err).Code)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return fmt.Errorf("cannot reach the S3 endpoint: %v", urlErr.Err)
	}
	return err
}
