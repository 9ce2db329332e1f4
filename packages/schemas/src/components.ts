/**
 * The named schemas of the published contract: each resource, payload and error body gets a
 * stable name, a description and an example, and the OpenAPI document refers to it with `$ref`
 * (so generators produce named types).
 */
import type { z } from 'zod';
import { ErrorBody, ValidationErrorBody } from './errors.js';
import * as ex from './examples.js';
import { type ComponentMeta, contractRegistry } from './registry.js';
import { AccessToken, AccessTokenCreate, AccessTokenWithSecret } from './resources/access-token.js';
import { Address, AddressUpdate } from './resources/address.js';
import { Campaign, CampaignCreate, CampaignSummary, CampaignUpdate } from './resources/campaign.js';
import { Collab, CollabCreate, CollabSummary, CollabUpdate } from './resources/collab.js';
import { Membership, MembershipUpdate } from './resources/membership.js';
import { Notification, NotificationSettings, NotificationSettingsUpdate } from './resources/notification.js';
import { Organization, OrganizationCreate, OrganizationUpdate } from './resources/organization.js';
import { SocialAccount, SocialAccountCreate } from './resources/social-account.js';
import {
  TestFunding,
  TestJoinRequest,
  TestPushSubscription,
  TestSubmission,
  TestSubscription,
  TestUserCreated,
} from './resources/test-helpers.js';

export { type ComponentMeta, contractRegistry, type FieldMeta } from './registry.js';

const { brief: _collabBrief, ...collabSummary } = ex.collab;
const { brief: _campaignBrief, ...campaignSummary } = ex.campaign;

const named: [z.ZodType, ComponentMeta][] = [
  [
    Organization,
    {
      id: 'Organization',
      description: 'An organization (brand or agency). `logo_url` is present only when a logo was uploaded.',
      examples: [ex.organization],
    },
  ],
  [
    OrganizationCreate,
    {
      id: 'OrganizationCreate',
      description: 'Fields of a new organization (inside the `organization` key).',
      examples: [{ name: 'Acme Studios', privacy_setting: 'private', website: 'https://acme.example' }],
    },
  ],
  [
    OrganizationUpdate,
    {
      id: 'OrganizationUpdate',
      description: 'Fields to change on an organization; `purge_logo: "1"` removes the logo.',
      examples: [{ name: 'Acme Studios GmbH' }],
    },
  ],
  [
    Membership,
    {
      id: 'Membership',
      description: "A user's membership of an organization, with the user.",
      examples: [ex.membership],
    },
  ],
  [
    MembershipUpdate,
    { id: 'MembershipUpdate', description: "A member's new role.", examples: [{ role: 'admin' }] },
  ],
  [
    CollabSummary,
    {
      id: 'CollabSummary',
      description: 'A collab as listed (without its brief).',
      examples: [collabSummary],
    },
  ],
  [
    Collab,
    {
      id: 'Collab',
      description: 'A collab with its brief, rendered to sanitized HTML.',
      examples: [ex.collab],
    },
  ],
  [
    CollabCreate,
    {
      id: 'CollabCreate',
      description: 'Fields of a new draft collab (inside the `collab` key); every field is optional.',
      examples: [{ name: 'Summer launch', countries: ['US', 'CA'], brief: '## About the product' }],
    },
  ],
  [
    CollabUpdate,
    {
      id: 'CollabUpdate',
      description: 'Fields to change on a collab; `purge_banner_image: "1"` removes the banner.',
      examples: [{ name: 'Summer launch 2027' }],
    },
  ],
  [
    CampaignSummary,
    {
      id: 'CampaignSummary',
      description: 'A campaign as listed (without its brief).',
      examples: [campaignSummary],
    },
  ],
  [
    Campaign,
    {
      id: 'Campaign',
      description: 'A campaign with its brief, rendered to sanitized HTML. Amounts are integers in cents.',
      examples: [ex.campaign],
    },
  ],
  [
    CampaignCreate,
    {
      id: 'CampaignCreate',
      description: 'Fields of a new draft campaign (inside the `campaign` key).',
      examples: [{ name: 'Autumn reels', currency: 'eur', countries: ['DE'], cpm_amount: 250 }],
    },
  ],
  [
    CampaignUpdate,
    {
      id: 'CampaignUpdate',
      description: 'Fields to change on a campaign; financial fields are refused once it was published.',
      examples: [{ name: 'Autumn reels 2027' }],
    },
  ],
  [
    SocialAccount,
    {
      id: 'SocialAccount',
      description: "One of the caller's social accounts; stats are null until the first sync.",
      examples: [ex.socialAccount],
    },
  ],
  [
    SocialAccountCreate,
    {
      id: 'SocialAccountCreate',
      description: 'A social account to connect by URL (YouTube, X, Twitch).',
      examples: [{ platform_id: 'youtube', account_url: 'https://youtube.com/@acme' }],
    },
  ],
  [Address, { id: 'Address', description: "The caller's shipping address.", examples: [ex.address] }],
  [
    AddressUpdate,
    {
      id: 'AddressUpdate',
      description: 'Address fields to set; merged into the stored address.',
      examples: [
        {
          address_one: '1 Infinite Loop',
          city: 'Cupertino',
          state: 'CA',
          postal_code: '95014',
          country_code: 'US',
        },
      ],
    },
  ],
  [
    Notification,
    { id: 'Notification', description: "A notification in the caller's inbox.", examples: [ex.notification] },
  ],
  [
    NotificationSettings,
    {
      id: 'NotificationSettings',
      description: "The caller's notification settings.",
      examples: [ex.notificationSettings],
    },
  ],
  [
    NotificationSettingsUpdate,
    {
      id: 'NotificationSettingsUpdate',
      description: 'Turns push notifications on or off.',
      examples: [{ push_notifications_enabled: false }],
    },
  ],
  [
    AccessToken,
    {
      id: 'AccessToken',
      description: 'Metadata of an access token (never its value).',
      examples: [ex.accessToken],
    },
  ],
  [
    AccessTokenCreate,
    {
      id: 'AccessTokenCreate',
      description: 'A new access token: what it is for and what it may do.',
      examples: [{ description: 'CI agent', permission: 'write' }],
    },
  ],
  [
    AccessTokenWithSecret,
    {
      id: 'AccessTokenWithSecret',
      description: 'A new access token with its value, shown this once.',
      examples: [{ ...ex.accessToken, token: `mkt_${'A'.repeat(43)}000000` }],
    },
  ],
  [
    ErrorBody,
    {
      // Not `Error`: a generated client declares each component as a type or class of its name,
      // and one named `Error` shadows the global Error in its module (issue #29).
      id: 'ErrorBody',
      description: 'Error body of 400, 403, 404, 413, 415 and 503.',
      examples: [{ error: 'Not found' }],
    },
  ],
  [
    ValidationErrorBody,
    {
      id: 'ValidationErrors',
      description: 'Error body of 422: every broken field with all of its messages (`base` for the object).',
      examples: [{ errors: { name: ["can't be blank"], website: ['is invalid'] } }],
    },
  ],
  // The test helpers' answers (only in the document of a server that enables them).
  [
    TestUserCreated,
    {
      id: 'TestUserCreated',
      description: 'A user made by the test helpers, with an access token (its value shown this once).',
      examples: [
        {
          user: ex.membership.user,
          access_token: { ...ex.accessToken, token: `mkt_${'A'.repeat(43)}000000` },
        },
      ],
    },
  ],
  [
    TestJoinRequest,
    {
      id: 'TestJoinRequest',
      description: 'A join request made by the test helpers.',
      examples: [
        {
          id: 'Jr5Kd8Wq2Lm1',
          user_id: ex.membership.user.id,
          organization_id: ex.organization.id,
          created_at: '2026-11-21T10:00:00.000Z',
        },
      ],
    },
  ],
  [
    TestSubscription,
    {
      id: 'TestSubscription',
      description: "An organization's subscription as the test helpers set it.",
      examples: [{ active: true }],
    },
  ],
  [
    TestSubmission,
    {
      id: 'TestSubmission',
      description: 'A submission added to a collab by the test helpers.',
      examples: [{ id: 'Sb7Hn3Qe9Vx4', created_at: '2026-11-21T10:00:00.000Z' }],
    },
  ],
  [
    TestFunding,
    {
      id: 'TestFunding',
      description: 'A funding of a campaign made by the test helpers (amount in cents).',
      examples: [{ id: 'Fd2Mw6Yt8Kp3', amount: 10000, created_at: '2026-11-21T10:00:00.000Z' }],
    },
  ],
  [
    TestPushSubscription,
    {
      id: 'TestPushSubscription',
      description: 'A push device registered for a user by the test helpers.',
      examples: [{ id: 'Ps4Rz1Nc7Gb5' }],
    },
  ],
];

for (const [schema, meta] of named) contractRegistry.add(schema, meta);
