/*
 * The plugin's descriptor and extension tables (descriptor.c), apart from
 * CLV2 so that the project's hosts can use CLV2's headers, URIs and port
 * indices without linking a plugin. Nothing here is called from Swift.
 */
