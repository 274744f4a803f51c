-- Each service owns its store (docs/architecture.md): one database per service, and one for the schema registry.
CREATE DATABASE catalog;
CREATE DATABASE sync;
CREATE DATABASE changes;
CREATE DATABASE webhooks;
CREATE DATABASE developer_auth;
CREATE DATABASE registry;
