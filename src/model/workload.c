// SPDX-License-Identifier: MIT
/* Workload identities (names, how a process is recognised) and restart arguments' paths. */
#include "advice.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	const char *title;
	bool app; /* an application (counts towards a mixed host), not a host trait */
} wl_info[WL_N] = {
	[WL_REDIS] = {"redis", "Redis", true},
	[WL_MONGODB7] = {"mongodb7", "MongoDB <= 7.0", true},
	[WL_MONGODB8] = {"mongodb8", "MongoDB >= 8.0", true},
	[WL_POSTGRES] = {"postgres", "PostgreSQL", true},
	[WL_JVM] = {"jvm", "JVM", true},
	[WL_GO] = {"go", "Go", true},
	[WL_NODE] = {"node", "Node.js", true},
	[WL_LATENCY] = {"latency-critical", "latency-critical", false},
	[WL_BATCH] = {"throughput-batch", "throughput batch", false},
	[WL_DENSE] = {"dense-containers", "dense containers", false},
};

const char *workload_name(enum workload w)
{
	return w < WL_N ? wl_info[w].name : "?";
}

const char *workload_names(void)
{
	return "redis, mongodb, mongodb7, mongodb8, postgres, jvm, go, node, latency-critical, throughput-batch, dense-containers";
}

int workload_parse(const char *name, enum workload *w, bool *assumed)
{
	*assumed = false;
	if (strcmp(name, "mongodb") == 0 || strcmp(name, "mongod") == 0) {
		*w = WL_MONGODB7;
		*assumed = true;
		return 0;
	}
	static const struct {
		const char *alias;
		enum workload w;
	} aliases[] = {{"postgresql", WL_POSTGRES}, {"java", WL_JVM},	     {"golang", WL_GO},
		       {"nodejs", WL_NODE},	    {"latency", WL_LATENCY}, {"batch", WL_BATCH},
		       {"containers", WL_DENSE},    {"valkey", WL_REDIS}};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0) {
			*w = aliases[i].w;
			return 0;
		}
	for (int i = 0; i < WL_N; i++)
		if (strcmp(name, wl_info[i].name) == 0) {
			*w = (enum workload)i;
			return 0;
		}
	return -EINVAL;
}

int workload_from_comm(const char *comm, const char *exe_base)
{
	static const struct {
		const char *comm;
		enum workload w;
	} table[] = {
		{"redis-server", WL_REDIS},  {"valkey-server", WL_REDIS},
		{"keydb-server", WL_REDIS},  {"redis-sentinel", -1},
		{"mongod", WL_MONGODB7},     {"postgres", WL_POSTGRES},
		{"postmaster", WL_POSTGRES}, {"java", WL_JVM},
		{"node", WL_NODE},	     {"nodejs", WL_NODE},
	};
	for (int k = 0; k < 2; k++) {
		const char *s = k ? exe_base : comm;
		if (!s || !*s)
			continue;
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (strcmp(s, table[i].comm) == 0)
				return (int)table[i].w;
	}
	return -1;
}

const char *workload_title(enum workload w)
{
	return w < WL_N ? wl_info[w].title : "?";
}

bool workload_is_app(enum workload w)
{
	return w < WL_N && wl_info[w].app;
}

bool arg_relative_path(const char *a)
{
	if (!a[0] || a[0] == '-' || a[0] == '/' || strchr(a, '=') || strstr(a, "://"))
		return false;
	if (!strcmp(a, ".") || !strcmp(a, "..")) /* java -cp . */
		return true;
	if (strchr(a, '/'))
		return true;
	const char *dot = strrchr(a, '.');
	if (!dot || dot == a || !dot[1] || strlen(dot + 1) > 8)
		return false;
	bool letter = false;
	for (const char *c = dot + 1; *c; c++) {
		if (!isalnum((unsigned char)*c))
			return false;
		letter |= isalpha((unsigned char)*c) != 0;
	}
	return letter;
}

int path_join_rel(const char *dir, const char *rel, char *out, size_t n)
{
	while (rel[0] == '.' && rel[1] == '/') {
		rel += 2;
		while (*rel == '/')
			rel++;
	}
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (!strcmp(rel, ".")) { /* the directory itself */
		if (!n || dl + 1 > n || !dl) {
			if (n)
				out[0] = '\0';
			return -ENOSPC;
		}
		memcpy(out, dir, dl);
		out[dl] = '\0';
		return 0;
	}
	bool root = dl == 1 && dir[0] == '/';
	size_t need = dl + 1 + strlen(rel) + 1;
	if (!n || need > n || !*rel) {
		if (n)
			out[0] = '\0';
		return -ENOSPC;
	}
	memcpy(out, dir, dl);
	size_t o = root ? 0 : dl;
	out[o++] = '/';
	strcpy(out + o, rel);
	return 0;
}
