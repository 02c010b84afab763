package cluster

// Enabled reports whether c sizes a Deployment. Off Kubernetes, or with no
// Deployment configured, New returns a capacity that does not: there is no
// pool to size, so acquiring succeeds at once and releasing does nothing.
func (c *DeploymentCapacity) Enabled() bool { return c.deployments != nil }
