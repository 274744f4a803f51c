-- Each service owns its store (DESIGN.md section 1): one database per service, and one for the schema registry.
CREATE DATABASE catalog;
CREATE DATABASE sync;
CREATE DATABASE changes;
CREATE DATABASE webhooks;
CREATE DATABASE developer_auth;
CREATE DATABASE registry;
