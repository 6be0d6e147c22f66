/* Suite base_cgroup: the CPUs a Linux cgroup's CPU quota allows
 * (host_cgroup_cpus), read from a cgroup file system made in a temporary
 * folder: v2 and v1, quotas on a parent, a container's host path, and
 * files that do not parse. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "base/host.h"
#include "tests/support/support.h"

Test(base_cgroup, v2_takes_the_least_quota_up_the_tree)
{
	char *root = t_tmpdir();

	t_write(root, "cpu.max", "max 100000\n");
	t_write(root, "ci/cpu.max", "250000 100000\n");
	t_write(root, "ci/job/cpu.max", "max 100000\n");
	t_write(root, "tight/cpu.max", "100000 100000\n");
	t_write(root, "tight/loose/cpu.max", "400000 100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/ci/job\n"), 3,
		     "2.5 CPUs round up, the parent's quota counts");
	cr_expect_eq(host_cgroup_cpus(root, "0::/tight/loose\n"), 1);
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0, "max: no quota");
	cr_expect_eq(host_cgroup_cpus(root, "0::/ci/job"), 3, "no newline");
	t_rmtree(root);
	free(root);
}

Test(base_cgroup, a_container_reads_its_mount_root)
{
	char *root = t_tmpdir();

	/* The host's path of the container's cgroup is not under the
	 * container's mount: the mount's root is its cgroup. */
	t_write(root, "cpu.max", "50000 100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/kubepods/pod1/c1\n"), 1);
	t_rmtree(root);
	free(root);
}

Test(base_cgroup, v1_reads_the_cpu_controller)
{
	char *root = t_tmpdir();
	const char *self = "12:memory:/docker/x\n"
			   "4:cpu,cpuacct:/docker/x\n"
			   "1:name=systemd:/docker/x\n";

	t_write(root, "cpu,cpuacct/docker/x/cpu.cfs_quota_us", "200000\n");
	t_write(root, "cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
	t_write(root, "memory/docker/x/cpu.cfs_quota_us", "100000\n");
	cr_expect_eq(host_cgroup_cpus(root, self), 2);
	t_write(root, "cpu,cpuacct/docker/x/cpu.cfs_quota_us", "-1\n");
	cr_expect_eq(host_cgroup_cpus(root, self), 0, "-1: no quota");
	/* Mounted as cpu/ alone, the controllers apart ("1:cpu:/"). */
	t_write(root, "cpu/cpu.cfs_quota_us", "300000\n");
	t_write(root, "cpu/cpu.cfs_period_us", "100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "1:cpu:/\n2:cpuacct:/\n"), 3);
	cr_expect_eq(host_cgroup_cpus(root, "1:cpuacct:/\n"), 0,
		     "cpuacct is not cpu");
	t_rmtree(root);
	free(root);
}

Test(base_cgroup, what_does_not_parse_is_no_quota)
{
	char *root = t_tmpdir();

	cr_expect_eq(host_cgroup_cpus(root, ""), 0);
	cr_expect_eq(host_cgroup_cpus(root, "garbage\n::\n0:\n"), 0);
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0, "no cpu.max");
	t_write(root, "cpu.max", "abc 100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0);
	t_write(root, "cpu.max", "0 100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0);
	t_write(root, "cpu.max", "100000 0\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0);
	t_write(root, "cpu.max", "100000\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0, "no period");
	t_write(root, "cpu.max", "100000 100000 9\n");
	cr_expect_eq(host_cgroup_cpus(root, "0::/\n"), 0, "trailing field");
	t_rmtree(root);
	free(root);
}

Test(base_cgroup, host_cpus_is_at_least_one)
{
	cr_expect_geq(host_cpus(), 1);
}
