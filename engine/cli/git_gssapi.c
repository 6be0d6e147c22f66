/*
 * libgit2's Negotiate authentication (SPNEGO and Kerberos over HTTP) calls
 * eight functions of MIT's libgssapi_krb5, and ripple never reaches them:
 * it opens no transport through libgit2. Debian ships that library shared
 * only, so the static build still mapped and relocated it and its five
 * (libkrb5, libk5crypto, libcom_err, libkrb5support, libkeyutils) at every
 * start: 0.37 M of the 0.85 M instructions of `ripple --version`.
 *
 * Built with RIPPLE_LAZY_GSSAPI (./configure, static build), the linker's
 * --wrap sends libgit2's eight calls here, the one variable it reads is
 * defined here, and --as-needed leaves the library out of the
 * executable's needs: it is loaded (base/dl.h) when libgit2 first asks
 * for a mechanism. Should it
 * be missing, every call fails as GSSAPI fails (GSS_S_FAILURE), so
 * Negotiate is never offered; nothing authenticates without it. The
 * release functions never load it: nothing of it can exist to release.
 * Linked into the ripple executable only, never into libripple.a.
 */
#ifdef RIPPLE_LAZY_GSSAPI
#include <stddef.h>
#include <stdint.h>

#include "base/dl.h"
#include "base/banned.h"

/* RFC 2744's C types, as far as the calls below pass them on. */
typedef uint32_t OM_uint32;
struct gss_oid_desc {
	OM_uint32 length;
	void *elements;
};
typedef struct gss_oid_desc *gss_OID;

#define GSS_S_COMPLETE 0u
#define GSS_S_FAILURE (13u << 16)

enum {
	G_DELETE_SEC_CONTEXT, G_DISPLAY_STATUS, G_IMPORT_NAME,
	G_INDICATE_MECHS, G_INIT_SEC_CONTEXT, G_RELEASE_BUFFER,
	G_RELEASE_NAME, G_RELEASE_OID_SET, G_N
};

static const char *const gss_names[G_N] = {
	[G_DELETE_SEC_CONTEXT] = "gss_delete_sec_context",
	[G_DISPLAY_STATUS] = "gss_display_status",
	[G_IMPORT_NAME] = "gss_import_name",
	[G_INDICATE_MECHS] = "gss_indicate_mechs",
	[G_INIT_SEC_CONTEXT] = "gss_init_sec_context",
	[G_RELEASE_BUFFER] = "gss_release_buffer",
	[G_RELEASE_NAME] = "gss_release_name",
	[G_RELEASE_OID_SET] = "gss_release_oid_set",
};

static dl_fn gss_fns[G_N];
static struct dl_lib gss_lib = DL_LIB("libgssapi_krb5.so.2",
				      "libgssapi-krb5-2",
				      "libgit2's Negotiate authentication",
				      gss_names, gss_fns);

/* The function in slot i of gss_fns, as type T. */
#define GSS_FN(T, i) ((T)gss_fns[i])

/* GSSAPI's answer when the library cannot be loaded. */
static OM_uint32
unavailable(OM_uint32 *minor)
{
	if (minor)
		*minor = 0;
	return GSS_S_FAILURE;
}

/* A release without the library: nothing of it exists to release. */
static OM_uint32
released(OM_uint32 *minor)
{
	if (minor)
		*minor = 0;
	return GSS_S_COMPLETE;
}

/*
 * GSS_C_NT_HOSTBASED_SERVICE, the name type of "HTTP@host": the OID
 * 1.2.840.113554.1.2.1.4 that RFC 2743 (4.1) fixes and MIT compares by
 * value. libgit2 reads the library's variable directly, so the executable
 * defines it (GNU ld 2.40 crashes on --wrap of a variable): hidden, it
 * serves libgit2's reference in this link and is never exported to the
 * library once loaded, which keeps its own.
 */
static struct gss_oid_desc hostbased_service = {
	10, (void *)"\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04"
};
extern gss_OID GSS_C_NT_HOSTBASED_SERVICE
	__attribute__((visibility("hidden")));
gss_OID GSS_C_NT_HOSTBASED_SERVICE = &hostbased_service;

OM_uint32 __wrap_gss_indicate_mechs(OM_uint32 *minor, void **mech_set);
OM_uint32 __wrap_gss_import_name(OM_uint32 *minor, void *name_buffer,
				 gss_OID name_type, void **name);
OM_uint32 __wrap_gss_init_sec_context(OM_uint32 *minor, void *cred,
				      void **ctx, void *target, gss_OID mech,
				      OM_uint32 req_flags, OM_uint32 time_req,
				      void *bindings, void *input,
				      gss_OID *actual_mech, void *output,
				      OM_uint32 *ret_flags,
				      OM_uint32 *time_rec);
OM_uint32 __wrap_gss_display_status(OM_uint32 *minor, OM_uint32 status,
				    int status_type, gss_OID mech,
				    OM_uint32 *message_context, void *string);
OM_uint32 __wrap_gss_delete_sec_context(OM_uint32 *minor, void **ctx,
					void *output);
OM_uint32 __wrap_gss_release_buffer(OM_uint32 *minor, void *buffer);
OM_uint32 __wrap_gss_release_name(OM_uint32 *minor, void **name);
OM_uint32 __wrap_gss_release_oid_set(OM_uint32 *minor, void **set);

OM_uint32
__wrap_gss_indicate_mechs(OM_uint32 *minor, void **mech_set)
{
	if (!dl_lib_ready(&gss_lib))
		return unavailable(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void **),
		      G_INDICATE_MECHS)(minor, mech_set);
}

OM_uint32
__wrap_gss_import_name(OM_uint32 *minor, void *name_buffer, gss_OID name_type,
		       void **name)
{
	if (!dl_lib_ready(&gss_lib))
		return unavailable(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void *, gss_OID, void **),
		      G_IMPORT_NAME)(minor, name_buffer, name_type, name);
}

OM_uint32
__wrap_gss_init_sec_context(OM_uint32 *minor, void *cred, void **ctx,
			    void *target, gss_OID mech, OM_uint32 req_flags,
			    OM_uint32 time_req, void *bindings, void *input,
			    gss_OID *actual_mech, void *output,
			    OM_uint32 *ret_flags, OM_uint32 *time_rec)
{
	if (!dl_lib_ready(&gss_lib))
		return unavailable(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void *, void **, void *,
				    gss_OID, OM_uint32, OM_uint32, void *,
				    void *, gss_OID *, void *, OM_uint32 *,
				    OM_uint32 *),
		      G_INIT_SEC_CONTEXT)(minor, cred, ctx, target, mech,
					  req_flags, time_req, bindings, input,
					  actual_mech, output, ret_flags,
					  time_rec);
}

OM_uint32
__wrap_gss_display_status(OM_uint32 *minor, OM_uint32 status,
			  int status_type, gss_OID mech,
			  OM_uint32 *message_context, void *string)
{
	if (!dl_lib_ready(&gss_lib))
		return unavailable(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, OM_uint32, int, gss_OID,
				    OM_uint32 *, void *),
		      G_DISPLAY_STATUS)(minor, status, status_type, mech,
					message_context, string);
}

OM_uint32
__wrap_gss_delete_sec_context(OM_uint32 *minor, void **ctx, void *output)
{
	if (!dl_lib_loaded(&gss_lib))
		return released(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void **, void *),
		      G_DELETE_SEC_CONTEXT)(minor, ctx, output);
}

OM_uint32
__wrap_gss_release_buffer(OM_uint32 *minor, void *buffer)
{
	if (!dl_lib_loaded(&gss_lib))
		return released(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void *),
		      G_RELEASE_BUFFER)(minor, buffer);
}

OM_uint32
__wrap_gss_release_name(OM_uint32 *minor, void **name)
{
	if (!dl_lib_loaded(&gss_lib))
		return released(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void **),
		      G_RELEASE_NAME)(minor, name);
}

OM_uint32
__wrap_gss_release_oid_set(OM_uint32 *minor, void **set)
{
	if (!dl_lib_loaded(&gss_lib))
		return released(minor);
	return GSS_FN(OM_uint32 (*)(OM_uint32 *, void **),
		      G_RELEASE_OID_SET)(minor, set);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int git_gssapi_linked;
#endif
