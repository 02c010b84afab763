package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// CreateNamespace creates a namespace.
func (p *ControlPlane) CreateNamespace(ctx context.Context, name string) error {
	_, err := p.Clients.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	return err
}

// Apply creates the objects of a multi-document YAML stream in namespace, as
// `kustomize edit set namespace` would place them: the objects and the service
// accounts their role bindings name move there. With opts.DryRun the server
// validates and admits them without storing them.
func (p *ControlPlane) Apply(ctx context.Context, namespace string, manifests []byte, opts metav1.CreateOptions) error {
	docs := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifests)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(comments.ReplaceAll(doc, nil))) == 0 {
			continue // nothing but comments, such as a file's header
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return fmt.Errorf("decode %q: %w", firstLine(doc), err)
		}
		if err := p.create(ctx, namespace, obj, opts); err != nil {
			return err
		}
	}
}

func (p *ControlPlane) create(ctx context.Context, namespace string, obj runtime.Object, opts metav1.CreateOptions) error {
	var err error
	switch o := obj.(type) {
	case *corev1.ServiceAccount:
		o.Namespace = namespace
		_, err = p.Clients.CoreV1().ServiceAccounts(namespace).Create(ctx, o, opts)
	case *corev1.ConfigMap:
		o.Namespace = namespace
		_, err = p.Clients.CoreV1().ConfigMaps(namespace).Create(ctx, o, opts)
	case *corev1.Service:
		o.Namespace = namespace
		_, err = p.Clients.CoreV1().Services(namespace).Create(ctx, o, opts)
	case *rbacv1.Role:
		o.Namespace = namespace
		_, err = p.Clients.RbacV1().Roles(namespace).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		o.Namespace = namespace
		for i := range o.Subjects {
			if o.Subjects[i].Kind == rbacv1.ServiceAccountKind {
				o.Subjects[i].Namespace = namespace
			}
		}
		_, err = p.Clients.RbacV1().RoleBindings(namespace).Create(ctx, o, opts)
	case *appsv1.Deployment:
		o.Namespace = namespace
		_, err = p.Clients.AppsV1().Deployments(namespace).Create(ctx, o, opts)
	case *batchv1.Job:
		o.Namespace = namespace
		_, err = p.Clients.BatchV1().Jobs(namespace).Create(ctx, o, opts)
	default:
		return fmt.Errorf("clustertest: no rule to create a %T", obj)
	}
	if err != nil {
		return fmt.Errorf("create %T %s: %w", obj, objectName(obj), err)
	}
	return nil
}

var comments = regexp.MustCompile(`(?m)^\s*#.*$`)

func firstLine(doc []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(doc), []byte("\n"))
	return string(line)
}

func objectName(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}
